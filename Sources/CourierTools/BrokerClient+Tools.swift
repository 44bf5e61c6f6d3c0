public import Courier
public import DBus
import CourierProtocol

/// The broker methods only the user's tools call (an app has no use for them): the registered
/// apps, the broker's state, its processes, and registration from an open file.
extension BrokerClient {
    /// One dictionary per registered app (`bundle-id`, `name`, `schemes`, `state`, `pid`, `launchable`, `path`).
    public func listApplications() async throws(CourierError) -> [[String: DBusValue]] {
        try await Broker1.call(Broker1.listApplications, on: connection)[0].arrayValue?.compactMap(\.vardictValue) ?? []
    }

    /// The broker's own state (`pid`, `manifest-paths`, `started-by`, `applications`, `running`).
    public func status() async throws(CourierError) -> [String: DBusValue] {
        try await Broker1.call(Broker1.getStatus, on: connection)[0].vardictValue ?? [:]
    }

    /// One dictionary per app the broker has dealt with (`bundle-id`, `state`, `pid`, `started-by`,
    /// `uptime-ms`, `idle-ms`, `handled`, `queued`, `in-flight`, `rss-bytes`, `failures`).
    public func processes() async throws(CourierError) -> [[String: DBusValue]] {
        try await Broker1.call(Broker1.listProcesses, on: connection)[0].arrayValue?.compactMap(\.vardictValue) ?? []
    }

    /// Registers the manifest open as `file` (`RegisterManifestFile`): the broker reads the
    /// descriptor, so it reads only what this process could open, and answers with the manifest's
    /// diagnostics; `path` (absolute) must name the same file, and is what the registry knows it by.
    public func registerManifest(file: UnixFD, path: String, replace: Bool = false) async throws(CourierError) -> String {
        var options = [String: DBusValue](CourierKey.path(path))
        if replace { options[CourierKey.replace] = true }
        return try await Broker1.call(Broker1.registerManifestFile, on: connection, [.unixFD(file), .vardict(options)]).first?.stringValue ?? ""
    }
}
