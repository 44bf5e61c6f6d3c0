import ArgumentParser
import Courier
import CourierNames
import CourierManifest
import CourierBrokerRegistry
import CourierDesktop
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
        /// The desktop's MIME type for the scheme or type.
        var mimeType: String?
        /// The hint for stderr when no Courier app handles it.
        var noHandlerMessage: String
    }

    func run() async throws {
        // Without --manifests, the running broker's view (never starting one); else the files.
        let broker = manifests.folders.isEmpty ? await BrokerRegistry.running(command: "handlers") : nil
        let answer = try await courierAnswer(broker)
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

    private func courierAnswer(_ broker: BrokerRegistry?) async throws -> CourierAnswer {
        let resolution: HandlerResolution
        var mimeType: String?
        var explanationPrefix = ""
        if let type {
            let registry = try await registry(broker)
            if let identification = Registry.identifyFileArgument(type, in: registry) {
                explanationPrefix = "\(type): \(identification.typeIdentifier) — \(identification.reason)\n"
                resolution = registry.handlers(forType: identification.typeIdentifier)
                mimeType = identification.mimeType ?? registry.types.preferredMIMEType(for: identification.typeIdentifier)
            } else if Self.looksLikeMIMEType(type) {
                // A MIME type: its uniform type identifier, and the desktop's key as given.
                resolution = registry.handlers(forType: registry.types.type(forMIMEType: type))
                mimeType = type.lowercased()
            } else {
                resolution = registry.handlers(forType: type)
                mimeType = registry.types.preferredMIMEType(for: type)
            }
        } else {
            let text = urlOrScheme!
            if text.contains(":") {
                // A URL: it must be valid (RFC 3986), as the broker would require before routing it.
                do {
                    _ = try URI(text)
                } catch {
                    reportRegistryError("courier: invalid URL: \(error)")
                    throw CourierExitCode.refused.exitCode
                }
            }
            guard let scheme = Registry.scheme(fromURLOrScheme: text) else {
                reportRegistryError("courier: '\(urlOrScheme!)' has no valid scheme; a scheme starts with a letter followed by letters, digits, '+', '-' or '.'")
                throw CourierExitCode.refused.exitCode
            }
            mimeType = DesktopApp.mimeType(forScheme: scheme)
            let message = "courier: no app can handle \(HandlerKey.scheme(scheme.lowercased()))\(hint(forScheme: scheme))"
            if let broker, !explain {
                // The broker's own answer (HandlersForURL), chosen first.
                let ids = try await brokerHandlers(broker, url: text.contains(":") ? text : scheme + ":")
                return CourierAnswer(bundleIDs: ids, mimeType: mimeType, noHandlerMessage: message)
            }
            resolution = try await registry(broker).handlers(forScheme: scheme)
        }
        if let problem = resolution.problem {
            reportRegistryError("courier: \(problem)")
            throw CourierExitCode.refused.exitCode
        }
        let scheme = type == nil ? urlOrScheme.flatMap(Registry.scheme(fromURLOrScheme:)) : nil
        return CourierAnswer(
            bundleIDs: resolution.chosen == nil ? [] : resolution.bundleIdentifiers,
            explanation: explain ? explanationPrefix + resolution.explanationText : nil,
            mimeType: mimeType,
            noHandlerMessage: "courier: no app can handle \(resolution.key)\(scheme.map { hint(forScheme: $0) } ?? "")")
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
    /// What to try instead when nothing handles `scheme` (`Registry.noHandlerAdvice`: "did you
    /// mean", or how a reserved scheme reaches a Courier app), from the manifests on disk.
    func hint(forScheme scheme: String) -> String {
        "; " + manifests.service().snapshot.noHandlerAdvice(forScheme: scheme)
    }

    /// The broker's registry (`BrokerRegistry`), else the files (`--manifests`, or no broker).
    private func registry(_ broker: BrokerRegistry?) async throws -> Registry {
        guard let broker else { return manifests.service().snapshot }
        do {
            return try await broker.registry().registry
        } catch {
            reportRegistryError("courier handlers: \(error.message)")
            throw CourierExitCode(error).exitCode
        }
    }

    private func brokerHandlers(_ broker: BrokerRegistry, url: String) async throws -> [String] {
        do {
            return try await broker.client.handlers(for: url)
        } catch where error.code == .invalidURL {
            reportRegistryError("courier: invalid URL: \(error.message)")
            throw CourierExitCode.refused.exitCode
        } catch {
            reportRegistryError("courier handlers: \(error.message)")
            throw CourierExitCode(error).exitCode
        }
    }
}
