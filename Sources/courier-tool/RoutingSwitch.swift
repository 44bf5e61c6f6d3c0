import Courier
import CourierBrokerRegistry
import CourierManifest
import CourierNames
import CourierProtocol
import Foundation

/// `courier disable` and `enable`: the user's `disabled` list in defaults.json, written as
/// `courier default` writes its choices, then re-read by a running broker (`ReloadDefaults`).
enum RoutingSwitch {
    static func set(_ bundleID: String, disabled: Bool, manifests: ManifestFolderOptions) async throws {
        let broker = manifests.folders.isEmpty ? await runningBroker() : nil
        let service = manifests.service()
        var registry = service.snapshot
        if let broker, let copy = try? await BrokerRegistry(client: broker).registry().registry {
            registry = copy
        }
        guard registry.application(bundleIdentifier: bundleID) != nil else {
            reportRegistryError("courier: no app with bundle identifier \(bundleID) is registered; `courier dump` lists them")
            throw CourierExitCode.unknownApp.exitCode
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
        let schemes = registry.application(bundleIdentifier: bundleID)?.schemes ?? []
        if was == disabled {
            print("\(bundleID) \(disabled ? "was already disabled" : "was not disabled")")
        } else if disabled {
            let next = schemes.map { scheme in "\(scheme): \(registry.handlers(forScheme: scheme).chosen?.bundleIdentifier ?? "no app")" }
            print("\(bundleID) is disabled: nothing is routed to it or launched\(next.isEmpty ? "" : "; now \(next.joined(separator: ", "))")")
        } else {
            print("\(bundleID) is enabled")
        }
        if let broker {
            do {
                _ = try await Broker1.call(Broker1.reloadDefaults, on: broker.connection)
            } catch {
                reportRegistryError("courier: saved, but the running broker did not re-read its defaults (\(CourierError(wrapping: error).message)); it applies when it restarts")
            }
        }
    }

    /// The running broker's client, nil when none runs (never starts one).
    static func runningBroker() async -> BrokerClient? {
        guard let client = try? BrokerClient.session(), await client.brokerIsRunning() else { return nil }
        return client
    }
}
