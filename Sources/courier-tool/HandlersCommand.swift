import ArgumentParser
import Courier
import CourierNames
import CourierManifest
import CourierBrokerRegistry
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
        // Without --manifests, the running broker's view (never starting one); else the files.
        let broker = manifests.folders.isEmpty ? await BrokerRegistry.running(command: "handlers") : nil
        let resolution: HandlerResolution
        if let type {
            let registry = try await registry(broker)
            if let identification = Registry.identifyFileArgument(type, in: registry) {
                if explain { print("\(type): \(identification.typeIdentifier) — \(identification.reason)") }
                resolution = registry.handlers(forType: identification.typeIdentifier)
            } else {
                resolution = registry.handlers(forType: type)
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
            if let broker, !explain {
                // The broker's own answer (HandlersForURL), chosen first.
                let ids = try await brokerHandlers(broker, url: text.contains(":") ? text : scheme + ":")
                ids.forEach { print($0) }
                if ids.isEmpty {
                    reportRegistryError("courier: no app can handle \(HandlerKey.scheme(scheme.lowercased()))\(hint(forScheme: scheme))")
                    throw CourierExitCode.noHandler.exitCode
                }
                return
            }
            resolution = try await registry(broker).handlers(forScheme: scheme)
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
                let scheme = type == nil ? urlOrScheme.flatMap(Registry.scheme(fromURLOrScheme:)) : nil
                reportRegistryError("courier: no app can handle \(resolution.key)\(scheme.map { hint(forScheme: $0) } ?? "")")
            }
            throw CourierExitCode.noHandler.exitCode
        }
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
