import CourierProtocol
import ArgumentParser
import CourierDesktop
import CourierTools
import CourierManifest
import CourierNames
import DBus
import Foundation

/// `courier default SCHEME APP` (or `--type UTI APP`): set the user's default handler, a Courier app
/// (bundle id) or a desktop application (desktop file id, `firefox.desktop`: written to
/// `mimeapps.list` as `xdg-mime default` writes it, and Courier then hands the scheme or type to
/// the desktop); `--show` reads the defaults, `--unset` forgets one. Saved in `defaults.json` in
/// Courier's state folder. A running broker makes a Courier app the default itself (`SetDefault`:
/// it checks the app against its registry, saves the file and routes by it at once — and with its
/// desktop entries, in `mimeapps.list` for schemes); a desktop application is checked against its
/// desktop entry here, saved, and the broker told to re-read the file (`ReloadDefaults`). With no
/// broker running, the command checks against the manifest folders and writes the file, the next
/// broker reads it, and the desktop entries are written here.
struct DefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default",
        abstract: "Choose, show or forget the app that handles a scheme (or, with --type, a file type): a Courier app or a desktop application.",
        discussion: """
            Saved in $XDG_CONFIG_HOME/courier/defaults.json and applied at once by a running broker. For a \
            scheme that belongs to the system (http, mailto, …) this is also the permission for that app to \
            handle it. APP may be a desktop file id (firefox.desktop) that declares the scheme's \
            x-scheme-handler/SCHEME (or the type's MIME type): it is written to $XDG_CONFIG_HOME/mimeapps.list \
            as `xdg-mime default` writes it, and Courier hands that scheme or type to the desktop instead of \
            choosing one of its apps. --type takes a MIME type (text/plain) for a desktop application. Exit \
            status: 0 done; 1 no default is set (when asked for one); 65 invalid scheme, type or app (not a \
            candidate, or a desktop application that does not declare it); 3 no such app or desktop entry; 73 \
            the defaults or mimeapps.list cannot be written; 64 usage error.

              courier default SCHEME BUNDLE_ID          courier default --type UTI BUNDLE_ID
              courier default SCHEME ID.desktop         courier default --type UTI-or-MIME ID.desktop
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

    @Argument(help: "SCHEME APP, or APP alone with --type (APP: a bundle id, or a desktop file id such as firefox.desktop); SCHEME alone with --unset and --show.",
              completion: .custom(RegisteredNames.schemesAndApplications))
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
        let broker = manifests.folders.isEmpty ? await BrokerToolClient.running() : nil
        if !show, !unset, arguments.last?.hasSuffix(".desktop") == true {
            // Only an argument that looks like a desktop file id costs a read of the manifests here.
            let service = manifests.service()
            if let desktopID = desktopApplicationArgument(in: service.snapshot) {
                return try await chooseDesktop(desktopID, service: service, broker: broker)
            }
        }
        if let broker { return try await run(with: broker) }
        let service = manifests.service()
        var registry = service.snapshot
        if show {
            return try showDefaults(registry.preferences, canonicalType: type.map(registry.types.canonical), mimeType: registry.types.preferredMIMEType(for:)) { key, isType in
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
    private func run(with broker: BrokerToolClient) async throws {
        do {
            if show {
                let folder = manifests.service().configuration.stateFolder
                let preferences = folder.map { RegistryStateStore(folder: $0).load().preferences } ?? RegistryPreferences()
                var chosen: [String: String?] = [:]
                for scheme in preferences.schemeDefaults.keys { chosen[scheme] = try await broker.handlers(forURL: scheme + ":").bundleIDs.first }
                for uti in preferences.typeDefaults.keys { chosen["type " + uti] = try await broker.handlers(forFileNamed: "", type: uti).bundleIDs.first }
                var canonicalType = type
                if let type { canonicalType = (try? await broker.handlers(forFileNamed: "", type: type))?.type ?? type }
                let types = manifests.service().snapshot.types
                return try showDefaults(preferences, canonicalType: canonicalType, mimeType: types.preferredMIMEType(for:)) { key, isType in chosen[(isType ? "type " : "") + key] ?? nil }
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
            let uti = registry.types.canonical(key)
            let had = type == nil
                ? registry.preferences.schemeDefaults[key] ?? registry.preferences.desktopSchemeDefaults[key].map { "the desktop's \($0)" }
                : registry.preferences.typeDefaults[uti] ?? registry.preferences.desktopTypeDefaults[uti].map { "the desktop's \($0)" }
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

    /// The APP argument when it names a desktop application: a desktop file id (`….desktop`) that
    /// is not the bundle id of a registered Courier app.
    private func desktopApplicationArgument(in registry: Registry) -> String? {
        guard let app = arguments.last, arguments.count == (type == nil ? 2 : 1), app.hasSuffix(".desktop"),
            registry.application(bundleIdentifier: app) == nil
        else { return nil }
        return app
    }

    /// Makes the desktop application `desktopID` the default: checks that its entry is installed
    /// and declares the MIME type, writes `mimeapps.list` (as `xdg-mime default`), then records
    /// in `registry` that Courier hands the scheme or type to the desktop. Returns the line to print.
    private func chooseDesktopApplication(_ desktopID: String, _ registry: inout Registry) throws -> String {
        let mimeType: String
        let subject: String
        var uti = ""
        var scheme = ""
        if let type {
            if HandlersCommand.looksLikeMIMEType(type) {
                mimeType = type.lowercased()
                uti = registry.types.type(forMIMEType: type)
            } else {
                uti = registry.types.canonical(type)
                guard let known = registry.types.preferredMIMEType(for: uti) else {
                    reportRegistryError("courier: no MIME type is known for \(type), so no desktop application can be chosen for it; give the MIME type instead: courier default --type text/plain \(desktopID)")
                    throw CourierExitCode.refused.exitCode
                }
                mimeType = known
            }
            subject = "\(mimeType) (\(uti))"
        } else {
            guard let valid = Registry.scheme(fromURLOrScheme: arguments[0]) else {
                reportRegistryError("courier: '\(arguments[0])' is not a URL scheme; give the scheme alone, e.g. todolist")
                throw CourierExitCode.refused.exitCode
            }
            scheme = valid
            mimeType = DesktopApp.mimeType(forScheme: scheme)
            subject = "\(scheme):"
        }
        let applications = DesktopApplications()
        guard let entry = applications.entry(id: desktopID) else {
            reportRegistryError("courier: \(DesktopIntegrationError.unknownDesktopEntry(id: desktopID, searched: applications.applicationFolders))")
            throw CourierExitCode.unknownApp.exitCode
        }
        if let bundleID = entry.courierBundleIdentifier {
            reportRegistryError("courier: \(desktopID) is the entry Courier writes for \(bundleID); choose the app itself: courier default \(type == nil ? arguments[0] : "--type \(type!)") \(bundleID)")
            throw CourierExitCode.refused.exitCode
        }
        guard entry.declares(mimeType) else {
            reportRegistryError("courier: \(DesktopIntegrationError.desktopEntryDoesNotDeclare(id: desktopID, mimeType: mimeType, path: entry.path))")
            throw CourierExitCode.refused.exitCode
        }
        do {
            if type == nil { try registry.setDesktopDefault(desktopID, forScheme: scheme) } else { try registry.setDesktopDefault(desktopID, forType: uti) }
        } catch {
            reportRegistryError("courier: \(error.message)")
            throw CourierExitCode.refused.exitCode
        }
        do {
            try DesktopIntegration.makeDefault(desktopID, for: [mimeType])
        } catch {
            reportRegistryError("courier: \(desktopID) was not made the default: \(error)")
            throw CourierExitCode.cannotWrite.exitCode
        }
        return "\(desktopID) (\(entry.name), a desktop application) now handles \(subject); Courier hands it to the desktop (mimeapps.list: \(mimeType)=\(desktopID))"
    }

    /// Makes the desktop application `desktopID` the default (``chooseDesktopApplication(_:_:)``),
    /// saves the defaults, and has a running broker re-read them.
    private func chooseDesktop(_ desktopID: String, service: RegistryService, broker: BrokerToolClient?) async throws {
        var registry = service.snapshot
        let store = service.configuration.stateFolder.map(RegistryStateStore.init(folder:))
        registry.replacePreferences(store?.load().preferences ?? registry.preferences)
        let line = try chooseDesktopApplication(desktopID, &registry)
        do {
            try store?.save(preferences: registry.preferences)
        } catch {
            reportRegistryError("courier: \(error.message)")
            throw CourierExitCode.cannotWrite.exitCode
        }
        print(line)
        if let broker { await reload(broker) }
    }

    /// `--show`: one line per default, `todolist: com.acme.notes`, or `type public.plain-text: …`,
    /// with what the registry chooses (`chosen(key, isType)`) when that differs (the app was
    /// unregistered, or lost its claim); a desktop application's line says whether the desktop's
    /// own default (`mimeapps.list`, for the MIME type `mimeType` gives a type) is it.
    private func showDefaults(_ preferences: RegistryPreferences, canonicalType: String?, mimeType: (String) -> String?,
                              chosen: (String, Bool) -> String?) throws {
        var lines: [String] = []
        func describe(_ label: String, _ id: String, _ chosen: String?) -> String {
            chosen == id ? "\(label): \(id)" : "\(label): \(id) (not in effect: \(chosen.map { "the registry chooses \($0)" } ?? "no app handles it"))"
        }
        let desktop = DesktopApplications()
        func describeDesktop(_ label: String, _ id: String, mimeType: String?) -> String {
            let current = mimeType.flatMap { desktop.defaultEntry(for: $0)?.id }
            let state = current == id ? "" : "; not in effect: \(current.map { "the desktop's default is \($0)" } ?? "the desktop has no default for it")"
            return "\(label): \(id) (desktop application\(state))"
        }
        func scheme(_ scheme: String) {
            if let id = preferences.schemeDefaults[scheme] { lines.append(describe(scheme, id, chosen(scheme, false))) }
            if let id = preferences.desktopSchemeDefaults[scheme] { lines.append(describeDesktop(scheme, id, mimeType: DesktopApp.mimeType(forScheme: scheme))) }
        }
        func type(_ uti: String) {
            if let id = preferences.typeDefaults[uti] { lines.append(describe("type \(uti)", id, chosen(uti, true))) }
            if let id = preferences.desktopTypeDefaults[uti] { lines.append(describeDesktop("type \(uti)", id, mimeType: mimeType(uti))) }
        }
        if let uti = canonicalType {
            type(uti)
        } else if let first = arguments.first {
            scheme((Registry.scheme(fromURLOrScheme: first) ?? first).lowercased())
        } else {
            Set(preferences.schemeDefaults.keys).union(preferences.desktopSchemeDefaults.keys).sorted().forEach(scheme)
            Set(preferences.typeDefaults.keys).union(preferences.desktopTypeDefaults.keys).sorted().forEach(type)
        }
        if lines.isEmpty {
            if self.type != nil || !arguments.isEmpty {
                reportRegistryError("courier: no default is set for \(self.type ?? arguments[0])")
                throw CourierExitCode.notSet.exitCode
            }
            return
        }
        lines.forEach { print($0) }
    }

    /// Has the running broker re-read the saved defaults (`ReloadDefaults`).
    private func reload(_ broker: BrokerToolClient) async {
        do {
            _ = try await broker.reloadDefaults()
        } catch {
            reportRegistryError("courier: saved, but the running broker did not re-read its defaults (\(error.message)); they apply when it restarts")
        }
    }
}
