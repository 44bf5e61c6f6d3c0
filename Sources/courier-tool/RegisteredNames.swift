import CourierDesktop
import CourierNames
import CourierTools
import CourierManifest
import CourierProtocol

/// What the shell completions offer (`courier ---completion …`, called by the scripts that
/// `--generate-completion-script` writes): the bundle ids and schemes registered in the manifest
/// folders on disk, read offline, so completing never starts or waits for a broker.
enum RegisteredNames {
    @Sendable static func bundleIdentifiers(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        registry().sortedApplications.map(\.bundleIdentifier.rawValue).filter { $0.hasPrefix(prefix) }
    }

    @Sendable static func schemes(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        registry().claimedSchemes.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    /// `courier default`'s words: a scheme, then a bundle id or the desktop file id of one of the
    /// desktop's applications (either, as the flags move them).
    @Sendable static func schemesAndApplications(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        schemes(words, index, prefix) + bundleIdentifiers(words, index, prefix)
            + DesktopApplications().entries().filter { $0.courierBundleIdentifier == nil && $0.id.hasPrefix(prefix) }.map(\.id)
    }

    /// Schemes as the start of a URL (`todolist://`).
    @Sendable static func urls(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        registry().claimedSchemes.map { $0 + "://" }.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    /// Whether `bundleID` is registered: with the running broker when one runs (never starting
    /// one), else by a manifest on disk.
    static func isRegistered(_ bundleID: String) async -> Bool {
        if let client = await BrokerToolClient.running(), let apps = try? await client.listApplications() {
            return apps.contains { $0[CourierKey.bundleID] == bundleID }
        }
        return registry().sortedApplications.contains { $0.bundleIdentifier.rawValue == bundleID }
    }

    private static func registry() -> Registry {
        RegistryService(configuration: .standard(manifestFolders: [])).snapshot
    }
}
