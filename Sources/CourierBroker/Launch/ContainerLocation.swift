public import Foundation

/// Where an app's container lives: `$XDG_DATA_HOME/courier/containers/<bundle-id>/`, with
/// `Documents/` inside (the iOS sandbox layout, on XDG base directories).
public struct ContainerLocation: Sendable, Hashable {
    /// `$XDG_DATA_HOME`, or `$HOME/.local/share` when it is unset or not absolute (XDG rule).
    public var dataHome: URL

    public init(dataHome: URL) {
        self.dataHome = dataHome
    }

    /// The XDG default for this environment.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let value = environment["XDG_DATA_HOME"], value.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            dataHome = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
    }

    /// The container folder of `bundleID`.
    public func container(for bundleID: String) -> URL {
        dataHome.appendingPathComponent("courier/containers", isDirectory: true)
            .appendingPathComponent(bundleID, isDirectory: true)
    }

    /// Creates the container and its `Documents/` (mode 0700) when missing, and returns the container.
    /// Refuses bundle ids that could escape the containers folder.
    public func prepareContainer(for bundleID: String) throws(BrokerError) -> URL {
        guard !bundleID.isEmpty, !bundleID.contains("/"), !bundleID.hasPrefix("."), !bundleID.contains("\0") else {
            throw BrokerError(.launchFailed, "bundle id '\(bundleID)' cannot name a container folder; fix CFBundleIdentifier in its manifest")
        }
        let container = container(for: bundleID)
        let documents = container.appendingPathComponent("Documents", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BrokerError(.launchFailed, "cannot create the container of \(bundleID) at \(documents.path): \(error.localizedDescription)")
        }
        return container
    }
}
