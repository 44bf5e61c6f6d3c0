import CourierProtocol
import ArgumentParser
import Courier
import CourierBrokerRegistry
import CourierManifest
import CourierNames
import DBus
import Foundation

/// `courier default SCHEME BUNDLE_ID` (or `--type UTI BUNDLE_ID`): set the user's default handler;
/// `--show` reads the defaults, `--unset` forgets one. Saved in `defaults.json` in Courier's state
/// folder; a running broker is told to re-read it (`ReloadDefaults`), so the choice applies at once
/// — and with the broker's desktop entries, in `mimeapps.list` for schemes. With no broker running,
/// the next one reads the file, and the desktop entries are written here.
struct DefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default",
        abstract: "Choose, show or forget the app that handles a scheme (or, with --type, a file type).",
        discussion: """
            Saved in $XDG_CONFIG_HOME/courier/defaults.json and applied at once by a running broker. For a \
            scheme that belongs to the system (http, mailto, …) this is also the permission for that app to \
            handle it. Exit status: 0 done; 1 no default is set (when asked for one); 65 invalid scheme, type or app (not \
            a candidate); 3 no such app; 73 the defaults cannot be saved; 64 usage error.

              courier default SCHEME BUNDLE_ID          courier default --type UTI BUNDLE_ID
              courier default --show [SCHEME]           courier default --show --type UTI
              courier default --unset SCHEME            courier default --unset --type UTI
            """)

    @OptionGroup var manifests: ManifestFolderOptions

    @Option(name: .customLong("type"), help: ArgumentHelp("A uniform type identifier instead of a scheme.", valueName: "uti"))
    var type: String?

    @Flag(help: "Print the defaults (all, or the one for SCHEME or --type UTI), each with the app the registry chooses now.")
    var show = false

    @Flag(help: "Forget the default for SCHEME (or --type UTI).")
    var unset = false

    @Argument(help: "SCHEME BUNDLE_ID, or BUNDLE_ID alone with --type; SCHEME alone with --unset and --show.",
              completion: .custom(RegisteredNames.schemesAndBundleIdentifiers))
    var arguments: [String] = []

    func validate() throws {
        if show && unset { throw ValidationError("give --show or --unset, not both") }
        let expected = show ? (type == nil ? 0...1 : 0...0) : unset ? (type == nil ? 1...1 : 0...0) : (type == nil ? 2...2 : 1...1)
        guard expected.contains(arguments.count) else {
            let form = show ? "courier default --show [SCHEME] (or --show --type UTI)"
                : unset ? "courier default --unset SCHEME (or --unset --type UTI)"
                : type == nil ? "courier default SCHEME BUNDLE_ID" : "courier default --type UTI BUNDLE_ID"
            throw ValidationError("usage: \(form)")
        }
    }

    func run() async throws {
        // The broker's view when one runs (apps it registered at run time included), else the files.
        let broker = manifests.folders.isEmpty ? await RoutingSwitch.runningBroker() : nil
        let service = manifests.service()
        var registry = service.snapshot
        if let broker, let copy = try? await BrokerRegistry(client: broker).registry().registry {
            registry = copy
        }
        if show { return try showDefaults(registry) }

        let store = service.configuration.stateFolder.map(RegistryStateStore.init(folder:))
        var preferences = store?.load().preferences ?? registry.preferences
        registry.replacePreferences(preferences)
        let line: String
        do {
            line = try change(&registry)
        } catch {
            reportRegistryError("courier: \(error.message)")
            let status: CourierExitCode = switch error.code {
            case .stateNotWritable: .cannotWrite
            case .unknownApplication: .unknownApp
            default: .refused
            }
            throw status.exitCode
        }
        preferences = registry.preferences
        do {
            try store?.save(preferences: preferences)
        } catch {
            reportRegistryError("courier: \(error.message)")
            throw CourierExitCode.cannotWrite.exitCode
        }
        print(line)
        if let broker {
            await tell(broker)
        } else if type == nil {
            print(OfflineDesktopEntries.synchronize())
        }
    }

    /// Applies the command to `registry` (which checks it) and returns the line to print.
    private func change(_ registry: inout Registry) throws(RegistryError) -> String {
        if unset {
            let key = type ?? (Registry.scheme(fromURLOrScheme: arguments[0]) ?? arguments[0]).lowercased()
            let had = type == nil ? registry.preferences.schemeDefaults[key] : registry.preferences.typeDefaults[registry.types.canonical(key)]
            if type == nil { registry.clearDefault(forScheme: key) } else { registry.clearDefault(forType: key) }
            let subject = type == nil ? "\(key):" : registry.types.canonical(key)
            guard let had else { return "no default was set for \(subject)" }
            let now = (type == nil ? registry.handlers(forScheme: key) : registry.handlers(forType: key)).chosen?.bundleIdentifier
            return "\(subject) no longer defaults to \(had)\(now.map { "; the registry chooses \($0)" } ?? "; no app handles it")"
        }
        if let type {
            try registry.setDefault(arguments[0], forType: type)
            return "\(arguments[0]) now opens \(registry.types.canonical(type))"
        }
        let scheme = Registry.scheme(fromURLOrScheme: arguments[0]) ?? arguments[0]
        try registry.setDefault(arguments[1], forScheme: scheme)
        return "\(arguments[1]) now handles \(scheme.lowercased()):"
    }

    /// `--show`: one line per default, `todolist: com.acme.notes`, or `type public.plain-text: …`,
    /// with what the registry chooses when that differs (the app was unregistered, or lost its claim).
    private func showDefaults(_ registry: Registry) throws {
        let preferences = registry.preferences
        var lines: [String] = []
        func describe(_ key: String, _ id: String, _ resolution: HandlerResolution) -> String {
            let chosen = resolution.chosen?.bundleIdentifier
            return chosen == id ? "\(key): \(id)" : "\(key): \(id) (not in effect: \(chosen.map { "the registry chooses \($0)" } ?? "no app handles it"))"
        }
        if let type {
            let uti = registry.types.canonical(type)
            if let id = preferences.typeDefaults[uti] { lines.append(describe("type \(uti)", id, registry.handlers(forType: uti))) }
        } else if let first = arguments.first {
            let scheme = (Registry.scheme(fromURLOrScheme: first) ?? first).lowercased()
            if let id = preferences.schemeDefaults[scheme] { lines.append(describe(scheme, id, registry.handlers(forScheme: scheme))) }
        } else {
            for (scheme, id) in preferences.schemeDefaults.sorted(by: { $0.key < $1.key }) {
                lines.append(describe(scheme, id, registry.handlers(forScheme: scheme)))
            }
            for (uti, id) in preferences.typeDefaults.sorted(by: { $0.key < $1.key }) {
                lines.append(describe("type \(uti)", id, registry.handlers(forType: uti)))
            }
        }
        if lines.isEmpty {
            if type != nil || !arguments.isEmpty {
                reportRegistryError("courier: no default is set for \(type ?? arguments[0])")
                throw CourierExitCode.notSet.exitCode
            }
            return
        }
        lines.forEach { print($0) }
    }


    /// Has the running broker re-read the defaults; says so when it cannot.
    private func tell(_ client: BrokerClient) async {
        do {
            _ = try await Broker1.call(Broker1.reloadDefaults, on: client.connection)
        } catch {
            reportRegistryError("courier: saved, but the running broker did not re-read its defaults (\(CourierError(wrapping: error).message)); they apply when it restarts")
        }
    }
}
