import ArgumentParser
import CourierTools
import CourierManifest
import CourierNames
import CourierProtocol
import Foundation

/// What `courier disable` and `enable` take, and what they do: the user's `disabled` list in
/// defaults.json, written as `courier default` writes its choices, then re-read by a running
/// broker (`ReloadDefaults`).
struct RoutingSwitch: ParsableArguments {
    @OptionGroup var manifests: ManifestFolderOptions

    @Argument(help: "The bundle id of the app.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    func set(disabled: Bool) async throws {
        let broker = manifests.folders.isEmpty ? await BrokerToolClient.running() : nil
        let service = manifests.service()
        var registry = service.snapshot
        // The broker's registry when one runs (apps it registered at run time included), else the files.
        let schemes: [String]
        if let broker {
            let apps = (try? await broker.listApplications()) ?? []
            guard let app = apps.first(where: { $0[CourierKey.bundleID] == bundleID }) else { throw unknown() }
            schemes = app[CourierKey.schemes] ?? []
        } else {
            guard let app = registry.application(bundleIdentifier: bundleID) else { throw unknown() }
            schemes = app.schemes
        }
        guard let store = service.configuration.stateFolder.map(RegistryStateStore.init(folder:)) else {
            reportRegistryError("courier: Courier has no state folder here ($XDG_CONFIG_HOME/courier); nothing can be saved")
            throw CourierExitCode.cannotWrite.exitCode
        }
        var preferences = store.load().preferences
        let was = preferences.disabled.contains(bundleID)
        if disabled { preferences.disabled.insert(bundleID) } else { preferences.disabled.remove(bundleID) }
        do {
            try store.save(preferences: preferences)
        } catch {
            reportRegistryError("courier: \(error.message)")
            throw CourierExitCode.cannotWrite.exitCode
        }
        registry.replacePreferences(preferences)
        var reloaded = false
        if let broker {
            do {
                _ = try await broker.reloadDefaults()
                reloaded = true
            } catch {
                reportRegistryError("courier: saved, but the running broker did not re-read its defaults (\(error.message)); it applies when it restarts")
            }
        }
        if was == disabled {
            print("\(bundleID) \(disabled ? "was already disabled" : "was not disabled")")
        } else if disabled {
            var next: [String] = []
            for scheme in schemes {
                let chosen = reloaded
                    ? (try? await broker!.handlers(forURL: scheme + ":"))?.bundleIDs.first
                    : registry.handlers(forScheme: scheme).chosen?.bundleIdentifier
                next.append("\(scheme): \(chosen ?? "no app")")
            }
            print("\(bundleID) is disabled: nothing is routed to it or launched\(next.isEmpty ? "" : "; now \(next.joined(separator: ", "))")")
        } else {
            print("\(bundleID) is enabled")
        }
    }

    private func unknown() -> ExitCode {
        reportRegistryError("courier: no app with bundle identifier \(bundleID) is registered; `courier dump` lists them")
        return CourierExitCode.unknownApp.exitCode
    }
}
