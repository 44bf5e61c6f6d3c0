import ArgumentParser
import CourierNames
import CourierManifest
import CourierDesktop
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
            `courier open` hands it to the desktop, whose default comes first. Exit status: 0 when some \
            app, Courier's or the desktop's, can handle it; 3 when none can (as `courier open` and \
            `courier can-open`); 65 when the scheme or type is invalid.
            """)

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
        /// The uniform type identifier, for `--type`.
        var type: String?
        /// The desktop's MIME type for the scheme or type.
        var mimeType: String?
        /// The hint for stderr when no Courier app handles it.
        var noHandlerMessage: String
    }

    func run() async throws {
        // Without --manifests, the running broker's answer (never starting one); else the files.
        let answer: CourierAnswer
        if manifests.folders.isEmpty, let broker = await RegistryQueries.running(command: "handlers") {
            answer = try await ask(broker)
        } else {
            answer = try answerFromFiles()
        }
        let desktop = answer.mimeType.map { mimeType in
            DesktopApplications().handlers(for: mimeType).filter { $0.entry.courierBundleIdentifier == nil }
        } ?? []
        let courierChosen = !answer.bundleIDs.isEmpty
        if json {
            var rows = answer.bundleIDs.enumerated().map { HandlerRow(bundleID: $1, chosen: $0 == 0) }
            let desktopRows = desktop.map {
                HandlerRow(desktopID: $0.entry.id, name: $0.entry.name, path: $0.entry.path, desktopDefault: $0.isDefault,
                           chosen: !courierChosen && $0.isDefault)
            }
            rows = courierChosen ? rows + desktopRows : desktopRows + rows
            let scheme = type == nil ? urlOrScheme.flatMap(Registry.scheme(fromURLOrScheme:)) : nil
            JSONOutput.print(HandlersOutput(scheme: scheme, type: type, mimeType: answer.mimeType, handlers: rows))
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

    /// Courier's answer from the manifest folders on disk.
    private func answerFromFiles() throws -> CourierAnswer {
        let registry = manifests.service().snapshot
        let resolution: HandlerResolution
        var mimeType: String?
        var uti: String?
        var explanationPrefix = ""
        if let type {
            if let identification = Registry.identifyFileArgument(type, in: registry) {
                explanationPrefix = "\(type): \(identification.typeIdentifier) — \(identification.reason)\n"
                uti = identification.typeIdentifier
                mimeType = identification.mimeType ?? registry.types.preferredMIMEType(for: identification.typeIdentifier)
            } else if Self.looksLikeMIMEType(type) {
                // A MIME type: its uniform type identifier, and the desktop's key as given.
                uti = registry.types.type(forMIMEType: type)
                mimeType = type.lowercased()
            } else {
                uti = type
                mimeType = registry.types.preferredMIMEType(for: type)
            }
            resolution = registry.handlers(forType: uti!)
        } else {
            let scheme = try scheme()
            mimeType = DesktopApp.mimeType(forScheme: scheme)
            resolution = registry.handlers(forScheme: scheme)
        }
        if let problem = resolution.problem {
            reportRegistryError("courier: \(problem)")
            throw CourierExitCode.refused.exitCode
        }
        let advice = type == nil ? "; " + registry.noHandlerAdvice(forScheme: try scheme()) : ""
        return CourierAnswer(
            bundleIDs: resolution.chosen == nil ? [] : resolution.bundleIdentifiers,
            explanation: explain ? explanationPrefix + resolution.explanationText : nil,
            type: uti.map(registry.types.canonical),
            mimeType: mimeType,
            noHandlerMessage: "courier: no app can handle \(resolution.key)\(advice)")
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
    var mimeType: String?
    var handlers: [HandlerRow]

    enum CodingKeys: String, CodingKey {
        case scheme, type, handlers
        case mimeType = "mime_type"
    }
}

/// One handler of `courier handlers --json`: a Courier app (`bundle_id`) or a desktop application
/// (`desktop: true`, `desktop_id`); `chosen` marks where `courier open` goes.
struct HandlerRow: Encodable {
    var bundleID: String?
    var desktopID: String?
    var name: String?
    var path: String?
    var desktop: Bool?
    var desktopDefault: Bool?
    var chosen: Bool

    init(bundleID: String, chosen: Bool) {
        self.bundleID = bundleID
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

    /// The broker's answer (`ExplainHandlersForURL`, `HandlersForFile`): a file argument is
    /// identified by the broker from its name and content, read through the descriptor passed.
    private func ask(_ broker: RegistryQueries) async throws -> CourierAnswer {
        do {
            if let type {
                var status = stat()
                if stat(type, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                    let fd = open(type, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
                    guard fd >= 0 else {
                        reportRegistryError("courier: cannot read \(type) (\(String(cString: strerror(errno))))")
                        throw CourierExitCode.cannotOpen.exitCode
                    }
                    let file = UnixFD(taking: fd)
                    defer { file.close() }
                    let answer = try await broker.handlers(forFileNamed: Paths.lastComponent(of: type), file: file)
                    return fileAnswer(answer, explanationPrefix: "\(type): \(answer.type) — \(answer.typeReason)\n")
                }
                if Self.looksLikeMIMEType(type) {
                    return fileAnswer(try await broker.handlers(forFileNamed: "", mimeType: type.lowercased()), mimeType: type.lowercased())
                }
                let uti = stat(type, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR ? "public.folder" : type
                return fileAnswer(try await broker.handlers(forFileNamed: "", type: uti))
            }
            let scheme = try scheme()
            let text = urlOrScheme!
            let answer = try await broker.handlers(forURL: text.contains(":") ? text : scheme + ":")
            return CourierAnswer(
                bundleIDs: answer.bundleIDs, explanation: explain ? answer.explanation : nil, mimeType: DesktopApp.mimeType(forScheme: scheme),
                noHandlerMessage: "courier: no app can handle \(HandlerKey.scheme(scheme.lowercased()))\(answer.advice.map { "; " + $0 } ?? "")")
        } catch let error as CourierError {
            if error.code == .invalidURL || error.code == .invalidArguments {
                reportRegistryError("courier: \(error.code == .invalidURL ? "invalid URL: " : "")\(error.message)")
                throw CourierExitCode.refused.exitCode
            }
            reportRegistryError("courier handlers: \(error.message)")
            throw CourierExitCode(error).exitCode
        }
    }

    /// Courier's answer for a file type from the broker's reply; the desktop's MIME type is the one
    /// given, else the type's own (shared-mime-info, read here).
    private func fileAnswer(_ answer: FileHandlersReply, explanationPrefix: String = "", mimeType: String? = nil) -> CourierAnswer {
        CourierAnswer(
            bundleIDs: answer.bundleIDs, explanation: explain ? explanationPrefix + answer.explanation : nil, type: answer.type,
            mimeType: mimeType ?? manifests.service().snapshot.types.preferredMIMEType(for: answer.type),
            noHandlerMessage: "courier: no app can handle type \(answer.type)")
    }
}
