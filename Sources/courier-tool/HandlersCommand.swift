import ArgumentParser
import CourierNames
import CourierManifest
import CourierDesktop
import CourierInbox
import CourierTools
import CourierProtocol
import CourierTypes
import DBus
import Foundation
import CourierURL

/// `courier handlers URL-or-scheme [--explain] [--json]` and `courier handlers --type UTI-or-FILE
/// [--explain] [--json]`: Courier's candidates, then the desktop's own applications for the same
/// MIME type (`x-scheme-handler/SCHEME`, or the type's), as `gio mime` and `handlr list` show them.
struct HandlersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handlers",
        abstract: "List the apps that handle a URL scheme or a file type, the chosen one first: Courier's, then the desktop's.",
        discussion: """
            Courier's apps come from the running broker (never started by this command); with no broker \
            running, or with --manifests, from the manifest folders on disk. The desktop's applications \
            (desktop entries and mimeapps.list, as `gio mime` reads them) follow, marked `(desktop)`; the \
            desktop's default is marked `(desktop, default)`. When a Courier app handles it, that app is \
            chosen; else (none claims it, or the user chose a desktop application with `courier default`) \
            `courier open` hands it to the desktop, whose default comes first.
            """ + " " + CourierExitCode.help([
                (.handled, "when some app, Courier's or the desktop's, can handle it"),
                (.noHandler, "when none can (as `courier open` and `courier can-open`)"),
                (.refused, "when the scheme or type is invalid"),
            ]))

    @OptionGroup var manifests: ManifestFolderOptions

    @Argument(help: "A URL (todolist://…) or a scheme (todolist).", completion: .custom(RegisteredNames.schemes))
    var urlOrScheme: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("A uniform type identifier (public.plain-text), a MIME type (text/plain) or a file to identify.", valueName: "uti-or-file"))
    var type: String?

    @Flag(help: "Say why each candidate won or lost (default, rank, first claim, reserved, invalid).")
    var explain = false

    @Flag(help: "Print one JSON object: the scheme or type, its MIME type and the handlers (docs/cli.md).")
    var json = false

    func validate() throws {
        if (urlOrScheme == nil) == (type == nil) {
            throw ValidationError("give either a URL or scheme, or --type UTI-or-FILE")
        }
        if json && explain { throw ValidationError("give --json or --explain, not both") }
    }

    /// What Courier would do with the scheme or type.
    private struct CourierAnswer {
        /// Eligible Courier apps, the chosen one first.
        var bundleIDs: [String]
        /// The `--explain` text, when asked for.
        var explanation: String?
        /// The uniform type identifier, for `--type`, and why the file has it.
        var type: String?
        var typeReason: String?
        /// Per Courier app, the content type it declares that the type conforms to (`--type`).
        var matchedTypes: [String: String] = [:]
        /// The desktop's MIME type for the scheme or type.
        var mimeType: String?
        /// The hint for stderr when no Courier app handles it.
        var noHandlerMessage: String
    }

    func run() async throws {
        // Without --manifests, the running broker's answer (never starting one); else the files.
        let broker = manifests.folders.isEmpty ? await BrokerConnection.runningRegistry(for: "handlers") : nil
        let answer: CourierAnswer
        if let type {
            answer = try await typeAnswer(type, from: broker)
        } else if let broker {
            answer = try await ask(broker)
        } else {
            answer = try answerFromFiles()
        }
        let desktop = answer.mimeType.map { mimeType in
            DesktopApplications().handlers(for: mimeType).filter { $0.entry.courierBundleIdentifier == nil }
        } ?? []
        let courierChosen = !answer.bundleIDs.isEmpty
        if json {
            var rows = answer.bundleIDs.enumerated().map { HandlerRow(bundleID: $1, matchedType: answer.matchedTypes[$1], chosen: $0 == 0) }
            let desktopRows = desktop.map {
                HandlerRow(desktopID: $0.entry.id, name: $0.entry.name, path: $0.entry.path, desktopDefault: $0.isDefault,
                           chosen: !courierChosen && $0.isDefault)
            }
            rows = courierChosen ? rows + desktopRows : desktopRows + rows
            let scheme = type == nil ? urlOrScheme.flatMap(Registry.scheme(fromURLOrScheme:)) : nil
            JSONOutput.print(HandlersOutput(scheme: scheme, type: answer.type, typeReason: answer.typeReason, mimeType: answer.mimeType, handlers: rows))
        } else if explain {
            if let explanation = answer.explanation { print(explanation) }
            for handler in desktop {
                let why = handler.isDefault ? (courierChosen ? "the desktop's default; Courier's choice comes first" : "the desktop's default: `courier open` hands it here") : "declares it"
                print("desktop: \(handler.entry.id) (\(handler.entry.name)) — \(why)\n   \(handler.entry.path)")
            }
        } else {
            let courierLines = answer.bundleIDs
            let desktopLines = desktop.map { "\($0.entry.id) (desktop\($0.isDefault ? ", default" : ""))" }
            (courierChosen ? courierLines + desktopLines : desktopLines + courierLines).forEach { print($0) }
        }
        if !courierChosen && desktop.isEmpty {
            if !explain { reportRegistryError(answer.noHandlerMessage) }
            throw CourierExitCode.noHandler.exitCode
        }
    }

    /// Courier's answer for the scheme from the manifest folders on disk.
    private func answerFromFiles() throws -> CourierAnswer {
        let registry = manifests.service().snapshot
        let scheme = try scheme()
        let resolution = registry.handlers(forScheme: scheme)
        if let problem = resolution.problem {
            reportRegistryError("courier: \(problem)")
            throw CourierExitCode.refused.exitCode
        }
        return CourierAnswer(
            bundleIDs: resolution.chosen == nil ? [] : resolution.bundleIdentifiers,
            explanation: explain ? resolution.explanationText : nil,
            mimeType: DesktopApp.mimeType(forScheme: scheme),
            noHandlerMessage: "courier: no app can handle \(resolution.key); \(registry.noHandlerAdvice(forScheme: scheme))")
    }
}

extension HandlersCommand {
    /// `type/subtype`: one `/`, neither part empty nor starting with `.` (a path that names no file
    /// stays a path, and is refused as a type).
    static func looksLikeMIMEType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }
}

/// `courier handlers --json`: one object.
struct HandlersOutput: Encodable {
    var scheme: String?
    var type: String?
    var typeReason: String?
    var mimeType: String?
    var handlers: [HandlerRow]

    enum CodingKeys: String, CodingKey {
        case scheme, type, handlers
        case typeReason = "type_reason"
        case mimeType = "mime_type"
    }
}

/// One handler of `courier handlers --json`: a Courier app (`bundle_id`) or a desktop application
/// (`desktop: true`, `desktop_id`); `chosen` marks where `courier open` goes.
struct HandlerRow: Encodable {
    var bundleID: String?
    var matchedType: String?
    var desktopID: String?
    var name: String?
    var path: String?
    var desktop: Bool?
    var desktopDefault: Bool?
    var chosen: Bool

    init(bundleID: String, matchedType: String?, chosen: Bool) {
        self.bundleID = bundleID
        self.matchedType = matchedType
        self.chosen = chosen
    }

    init(desktopID: String, name: String, path: String, desktopDefault: Bool, chosen: Bool) {
        self.desktopID = desktopID
        self.name = name
        self.path = path
        self.desktop = true
        self.desktopDefault = desktopDefault
        self.chosen = chosen
    }

    enum CodingKeys: String, CodingKey {
        case name, path, desktop, chosen
        case bundleID = "bundle_id"
        case matchedType = "matched_type"
        case desktopID = "desktop_id"
        case desktopDefault = "desktop_default"
    }
}

extension HandlersCommand {
    /// The scheme of the URL or scheme argument; a URL must be valid (RFC 3986), as the broker
    /// would require before routing it. Exits 65 otherwise.
    private func scheme() throws -> String {
        let text = urlOrScheme!
        if text.contains(":") {
            do {
                _ = try URI(text)
            } catch {
                reportRegistryError("courier: invalid URL: \(error)")
                throw CourierExitCode.refused.exitCode
            }
        }
        guard let scheme = Registry.scheme(fromURLOrScheme: text) else {
            reportRegistryError("courier: '\(text)' has no valid scheme; a scheme starts with a letter followed by letters, digits, '+', '-' or '.'")
            throw CourierExitCode.refused.exitCode
        }
        return scheme
    }

    /// The broker's answer for the scheme (`ExplainHandlersForURL`).
    private func ask(_ broker: BrokerToolClient) async throws -> CourierAnswer {
        let scheme = try scheme()
        let text = urlOrScheme!
        let answer = try await refusingInvalid { () async throws(CourierError) in try await broker.handlers(forURL: text.contains(":") ? text : scheme + ":") }
        return CourierAnswer(
            bundleIDs: answer.bundleIDs, explanation: explain ? answer.explanation : nil, mimeType: DesktopApp.mimeType(forScheme: scheme),
            noHandlerMessage: "courier: no app can handle \(HandlerKey.scheme(scheme.lowercased()))\(answer.advice.map { "; " + $0 } ?? "")")
    }

    /// Courier's answer for `--type`: a file is typed by its name and content, read through a
    /// descriptor; a folder is `public.folder`; else the argument is a MIME type or a type
    /// identifier. The broker answers (`HandlersForFile`) when one runs; else the same decision is
    /// made here over the manifest folders (`Registry.fileHandlers`), so both print alike.
    private func typeAnswer(_ argument: String, from broker: BrokerToolClient?) async throws -> CourierAnswer {
        var status = stat()
        let exists = stat(argument, &status) == 0
        if exists && status.st_mode & S_IFMT == S_IFDIR {
            var answer = try await fileHandlers(named: "", type: "public.folder", from: broker)
            answer.typeReason = "a folder"
            return fileAnswer(answer, explanationPrefix: "\(argument): \(answer.type) — \(answer.typeReason)\n")
        }
        if exists {
            let fd = open(argument, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else {
                reportRegistryError("courier: cannot read \(argument) (\(String(cString: strerror(errno))))")
                throw CourierExitCode.cannotOpen.exitCode
            }
            let file = UnixFD(taking: fd)
            defer { file.close() }
            // A FIFO or a device is typed by its name only: its content is never read.
            let regular = status.st_mode & S_IFMT == S_IFREG
            let answer = try await fileHandlers(named: Paths.lastComponent(of: argument), file: regular ? file : nil, from: broker)
            return fileAnswer(answer, explanationPrefix: "\(argument): \(answer.type) — \(answer.typeReason)\n")
        }
        if Self.looksLikeMIMEType(argument) {
            return fileAnswer(try await fileHandlers(named: "", mimeType: argument.lowercased(), from: broker))
        }
        return fileAnswer(try await fileHandlers(named: "", type: argument, from: broker))
    }

    /// `HandlersForFile` of the broker, or with none the same answer from the manifest folders.
    private func fileHandlers(named name: String, file: UnixFD? = nil, type: String? = nil, mimeType: String? = nil,
                              from broker: BrokerToolClient?) async throws -> FileHandlersReply {
        try await refusingInvalid { () async throws(CourierError) in
            if let broker { return try await broker.handlers(forFileNamed: name, file: file, type: type, mimeType: mimeType) }
            let registry = manifests.service().snapshot
            let fileName = name.isEmpty && file == nil ? "" : InboxFileName(suggested: name).name
            guard let answer = try registry.fileHandlers(name: fileName, descriptor: file?.rawValue, type: type, announcedMIMEType: mimeType) else {
                throw CourierError(.invalidArguments, "give a file, a MIME type or a uniform type identifier")
            }
            return FileHandlersReply(type: answer.type, bundleIDs: answer.resolution.bundleIdentifiers, typeReason: answer.reason,
                                     explanation: answer.resolution.explanationText, mimeType: answer.mimeType, matchedTypes: answer.matchedTypes)
        }
    }

    /// Runs a query; an invalid URL or type exits 65 with the reason, another error with its code.
    private func refusingInvalid<T>(_ query: () async throws(CourierError) -> T) async throws -> T {
        do {
            return try await query()
        } catch {
            if error.code == .invalidURL || error.code == .invalidArguments {
                reportRegistryError("courier: \(error.code == .invalidURL ? "invalid URL: " : "")\(error.message)")
                throw CourierExitCode.refused.exitCode
            }
            reportRegistryError("courier handlers: \(error.message)")
            throw CourierExitCode(error).exitCode
        }
    }

    /// Courier's answer for a file type from `HandlersForFile`'s reply, the desktop's MIME type included.
    private func fileAnswer(_ answer: FileHandlersReply, explanationPrefix: String = "") -> CourierAnswer {
        CourierAnswer(
            bundleIDs: answer.bundleIDs, explanation: explain ? explanationPrefix + answer.explanation : nil, type: answer.type,
            typeReason: answer.typeReason, matchedTypes: answer.matchedTypes, mimeType: answer.mimeType,
            noHandlerMessage: "courier: no app can handle type \(answer.type)")
    }
}
