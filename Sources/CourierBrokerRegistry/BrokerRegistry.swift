public import Courier
public import CourierManifest
public import CourierNames
public import DBus
import CourierProtocol

/// What `courier dump` and `courier handlers` read when a broker runs: the registry as the broker
/// routes with it, so what they print is what `courier open` will do — including manifests
/// registered at runtime (`courier register` of a file outside the manifest folders) and without
/// apps it unregistered. They never start a broker for this: with none running they read the
/// manifest folders on disk, and say so in one line on standard error. `courier nearby receive`
/// reads it to refuse, at `prepare-upload`, a file no app would accept.
public struct BrokerRegistry: Sendable {
    public let client: BrokerClient

    public init(client: BrokerClient) {
        self.client = client
    }

    /// A read-only copy of the broker's registry, built with the same code from the same files:
    /// the folders it reads (`GetStatus` `manifest-paths`), the manifests it lists
    /// (`ListApplications` `path`) that are outside them, minus the apps it does not list, with the
    /// user's defaults and first-claim order from the same state folder. Nothing is written (the
    /// broker owns the state files while it runs). Also returns the problems reading that state.
    public func registry(layout: CourierLayout = .current()) async throws(CourierError) -> (registry: Registry, stateDiagnostics: [ManifestDiagnostic]) {
        let status = try await client.status()
        let applications = try await client.listApplications()
        let folders = status[CourierKey.manifestPaths] ?? []
        let stored = RegistryStateStore(folder: layout.configFolder).load()
        let empty = Registry(preferences: stored.preferences, claimOrder: stored.claimOrder)
        let loader = ManifestLoader()
        let loaded = loader.load(folders: folders, reportMissing: false)
        let loadedPaths = Set(loaded.files.map(\.path))
        let extraPaths = applications.compactMap { $0[CourierKey.path] }.filter { !loadedPaths.contains($0) }
        var registry = Registry.build(files: loaded.files + loader.load(files: extraPaths), folderDiagnostics: loaded.diagnostics, previous: empty).registry
        let listed = Set(applications.compactMap { $0[CourierKey.bundleID] })
        for app in registry.sortedApplications where !listed.contains(app.bundleIdentifier.rawValue) {
            _ = try? registry.unregister(bundleIdentifier: app.bundleIdentifier.rawValue)
        }
        // Squatted names, from the broker's receiver checks: shown with the diagnostics.
        let squats = applications.compactMap { app -> ManifestDiagnostic? in
            let squat = Self.squat(app)
            guard !squat.isEmpty, let id = app[CourierKey.bundleID] else { return nil }
            return ManifestDiagnostic(file: app[CourierKey.path] ?? id, keyPath: "CFBundleIdentifier",
                                      message: "\(id)\(squat); stop that process", severity: .warning, code: .init(rawValue: "name-squatted"))
        }
        // Manifest files the broker holds back (they would take over a running app).
        let held = zip(status[CourierKey.heldChangeFiles] ?? [], status[CourierKey.heldChangeMessages] ?? []).map {
            ManifestDiagnostic(file: $0, keyPath: "CFBundleIdentifier", message: $1, severity: .warning, code: .heldRegistryChange)
        }
        return (registry, stored.diagnostics + squats + held)
    }

    /// The broker's last registry changes, each with who made it (`GetStatus` `registry-changes`).
    public func recentChanges() async throws(CourierError) -> [String] {
        try await client.status()[CourierKey.registryChanges] ?? []
    }

    /// " — squatted by pid N (EXE)" when an impostor holds the app's bus name (`ListApplications`).
    public static func squat(_ app: [String: DBusValue]) -> String {
        guard app[CourierKey.squatted] == true else { return "" }
        let pid = app[CourierKey.squatterPID].map { "pid \($0)" } ?? "an unidentified process"
        let executable = app[CourierKey.squatterExecutable].map { " (\($0))" } ?? ""
        return " — squatted by \(pid)\(executable): its bus name is taken, nothing is delivered to it"
    }
}
