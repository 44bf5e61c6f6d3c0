import ArgumentParser
import Courier
import CourierNames
import CourierManifest
import CourierTools
import CourierProtocol
import CourierTypes
import DBus
import Foundation
import CourierURL

/// `courier handlers URL-or-scheme [--explain]` and `courier handlers --type UTI-or-FILE [--explain]`.
struct HandlersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handlers",
        abstract: "List the apps that handle a URL scheme or a file type, the chosen one first.",
        discussion: """
            Without --manifests: what the running broker would route to (never starts one); with no broker \
            running, the manifest folders on disk. Exit status: 0 when some app can handle it, 3 when none \
            can (as `courier open` and `courier can-open`), 65 when the scheme or type is invalid.
            """)

    @OptionGroup var manifests: ManifestFolderOptions

    @Argument(help: "A URL (todolist://…) or a scheme (todolist).", completion: .custom(RegisteredNames.schemes))
    var urlOrScheme: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("A uniform type identifier (public.plain-text) or a file to identify.", valueName: "uti-or-file"))
    var type: String?

    @Flag(help: "Say why each candidate won or lost (default, rank, first claim, reserved, invalid).")
    var explain = false

    func validate() throws {
        if (urlOrScheme == nil) == (type == nil) {
            throw ValidationError("give either a URL or scheme, or --type UTI-or-FILE")
        }
    }

    func run() async throws {
        // Without --manifests, the running broker's answer (never starting one); else the files.
        if manifests.folders.isEmpty, let broker = await RegistryQueries.running(command: "handlers") {
            return try await ask(broker)
        }
        let registry = manifests.service().snapshot
        let resolution: HandlerResolution
        if let type {
            if let identification = Registry.identifyFileArgument(type, in: registry) {
                if explain { print("\(type): \(identification.typeIdentifier) — \(identification.reason)") }
                resolution = registry.handlers(forType: identification.typeIdentifier)
            } else {
                resolution = registry.handlers(forType: type)
            }
        } else {
            resolution = registry.handlers(forScheme: try scheme())
        }
        if let problem = resolution.problem {
            reportRegistryError("courier: \(problem)")
            throw CourierExitCode.refused.exitCode
        }
        if explain {
            print(resolution.explanationText)
        } else {
            for id in resolution.bundleIdentifiers { print(id) }
        }
        if resolution.chosen == nil {
            if !explain {
                let advice = type == nil ? "; " + registry.noHandlerAdvice(forScheme: try scheme()) : ""
                reportRegistryError("courier: no app can handle \(resolution.key)\(advice)")
            }
            throw CourierExitCode.noHandler.exitCode
        }
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
    private func ask(_ broker: RegistryQueries) async throws {
        let ids: [String]
        let explanation: String
        let subject: String
        var advice: String?
        do {
            if let type {
                let answer: FileHandlersReply
                var status = stat()
                if stat(type, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                    let fd = open(type, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
                    guard fd >= 0 else {
                        reportRegistryError("courier: cannot read \(type) (\(String(cString: strerror(errno))))")
                        throw CourierExitCode.cannotOpen.exitCode
                    }
                    let file = UnixFD(taking: fd)
                    defer { file.close() }
                    answer = try await broker.handlers(forFileNamed: Paths.lastComponent(of: type), file: file)
                    if explain { print("\(type): \(answer.type) — \(answer.typeReason)") }
                } else {
                    let uti = stat(type, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR ? "public.folder" : type
                    answer = try await broker.handlers(forFileNamed: "", type: uti)
                }
                (ids, explanation, subject) = (answer.bundleIDs, answer.explanation, "type \(answer.type)")
            } else {
                let scheme = try scheme()
                let text = urlOrScheme!
                let answer = try await broker.handlers(forURL: text.contains(":") ? text : scheme + ":")
                (ids, explanation, subject, advice) = (answer.bundleIDs, answer.explanation, HandlerKey.scheme(scheme.lowercased()).description, answer.advice)
            }
        } catch let error as CourierError {
            if error.code == .invalidURL || error.code == .invalidArguments {
                reportRegistryError("courier: \(error.code == .invalidURL ? "invalid URL: " : "")\(error.message)")
                throw CourierExitCode.refused.exitCode
            }
            reportRegistryError("courier handlers: \(error.message)")
            throw CourierExitCode(error).exitCode
        }
        if explain {
            print(explanation)
        } else {
            ids.forEach { print($0) }
        }
        if ids.isEmpty {
            if !explain { reportRegistryError("courier: no app can handle \(subject)\(advice.map { "; " + $0 } ?? "")") }
            throw CourierExitCode.noHandler.exitCode
        }
    }
}
