import CourierManifest

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

    /// Schemes as the start of a URL (`todolist://`).
    @Sendable static func urls(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        registry().claimedSchemes.map { $0 + "://" }.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    private static func registry() -> Registry {
        RegistryService(configuration: .standard(manifestFolders: [])).snapshot
    }
}
