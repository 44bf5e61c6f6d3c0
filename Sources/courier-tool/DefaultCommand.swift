import CourierProtocol
import ArgumentParser
import Courier
import CourierTools
import CourierManifest
import CourierNames
import DBus
import Foundation

/// `courier default SCHEME BUNDLE_ID` (or `--type UTI BUNDLE_ID`): set the user's default handler;
/// `--show` reads the defaults, `--unset` forgets one. Saved in `defaults.json` in Courier's state
/// folder. A running broker makes the change itself (`SetDefault`: it checks the app against its
/// registry, saves the file and routes by it at once — and with its desktop entries, in
/// `mimeapps.list` for schemes). With no broker running, the command checks against the manifest
/// folders and writes the file, the next broker reads it, and the desktop entries are written here.
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
        if manifests.folders.isEmpty, let broker = await Self.runningBroker() {
            return try await run(with: broker)
        }
        let service = manifests.service()
        var registry = service.snapshot
        if show {
            return try showDefaults(registry.preferences, canonicalType: type.map(registry.types.canonical)) { key, isType in
                (isType ? registry.handlers(forType: key) : registry.handlers(forScheme: key)).chosen?.bundleIdentifier
            }
        }

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
        if type == nil { print(OfflineDesktopEntries.synchronize()) }
    }

    /// With a broker running: the broker checks, saves and applies (`SetDefault`); `--show` reads
    /// the saved defaults and asks the broker which app it chooses for each.
    private func run(with broker: RegistryQueries) async throws {
        do {
            if show {
                let folder = manifests.service().configuration.stateFolder
                let preferences = folder.map { RegistryStateStore(folder: $0).load().preferences } ?? RegistryPreferences()
                var chosen: [String: String?] = [:]
                for scheme in preferences.schemeDefaults.keys { chosen[scheme] = try await broker.handlers(forURL: scheme + ":").bundleIDs.first }
                for uti in preferences.typeDefaults.keys { chosen["type " + uti] = try await broker.handlers(forFileNamed: "", type: uti).bundleIDs.first }
                var canonicalType = type
                if let type { canonicalType = (try? await broker.handlers(forFileNamed: "", type: type))?.type ?? type }
                return try showDefaults(preferences, canonicalType: canonicalType) { key, isType in chosen[(isType ? "type " : "") + key] ?? nil }
            }
            let isType = type != nil
            let key = type ?? arguments[0]
            let bundleID = unset ? nil : arguments[isType ? 0 : 1]
            let answer = try await broker.setDefault(bundleID, for: key, isType: isType)
            let subject = isType ? answer.key : "\(answer.key):"
            if let bundleID {
                print(isType ? "\(bundleID) now opens \(answer.key)" : "\(bundleID) now handles \(answer.key):")
            } else if let had = answer.previous {
                print("\(subject) no longer defaults to \(had)\(answer.chosen.map { "; the registry chooses \($0)" } ?? "; no app handles it")")
            } else {
                print("no default was set for \(subject)")
            }
        } catch let error as CourierError {
            reportRegistryError("courier: \(error.message)")
            let status: CourierExitCode = switch error.code {
            case .failed: .cannotWrite
            case .noHandler: .unknownApp
            case .invalidArguments: .refused
            default: CourierExitCode(error)
            }
            throw status.exitCode
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
    /// with what the registry chooses (`chosen(key, isType)`) when that differs (the app was
    /// unregistered, or lost its claim).
    private func showDefaults(_ preferences: RegistryPreferences, canonicalType: String?, chosen: (String, Bool) -> String?) throws {
        var lines: [String] = []
        func describe(_ label: String, _ id: String, _ chosen: String?) -> String {
            chosen == id ? "\(label): \(id)" : "\(label): \(id) (not in effect: \(chosen.map { "the registry chooses \($0)" } ?? "no app handles it"))"
        }
        if let uti = canonicalType {
            if let id = preferences.typeDefaults[uti] { lines.append(describe("type \(uti)", id, chosen(uti, true))) }
        } else if let first = arguments.first {
            let scheme = (Registry.scheme(fromURLOrScheme: first) ?? first).lowercased()
            if let id = preferences.schemeDefaults[scheme] { lines.append(describe(scheme, id, chosen(scheme, false))) }
        } else {
            for (scheme, id) in preferences.schemeDefaults.sorted(by: { $0.key < $1.key }) {
                lines.append(describe(scheme, id, chosen(scheme, false)))
            }
            for (uti, id) in preferences.typeDefaults.sorted(by: { $0.key < $1.key }) {
                lines.append(describe("type \(uti)", id, chosen(uti, true)))
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

    /// The running broker, nil when none runs (never starts one).
    private static func runningBroker() async -> RegistryQueries? {
        guard let client = try? BrokerClient.session(), await client.brokerIsRunning() else { return nil }
        return RegistryQueries(client: client)
    }
}
