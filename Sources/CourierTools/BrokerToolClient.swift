public import CourierNames
public import CourierProtocol
public import DBus

/// How the user's tools (`courier-tool`, `courier-nearby`, the benchmark, the load harness, the
/// tests) call the broker: the protocol's client on the connection they give — the session bus,
/// or a private bus of a test — with the calls only tools make (below). An app links the library
/// `Courier` instead, whose `BrokerClient` offers what an app asks of the broker and nothing of these.
public typealias BrokerToolClient = Broker1Client

extension Broker1Client {
    /// The running broker's client on the session bus; nil when there is no session bus or nobody
    /// owns `org.courier.Broker` (never starts one).
    public static func running() async -> Broker1Client? {
        guard let client = try? session(), await client.brokerIsRunning() else { return nil }
        return client
    }

    /// Registers the manifest open as `file` (`RegisterManifestFile`): the broker reads the
    /// descriptor, so it reads only what this process could open, and answers with the manifest's
    /// diagnostics; `path` (absolute) must name the same file, and is what the registry knows it by.
    public func registerManifest(file: UnixFD, path: String, replace: Bool = false) async throws(CourierError) -> String {
        var options = [String: DBusValue](CourierKey.path(path))
        if replace { options[CourierKey.replace] = true }
        return try await call(Broker1.registerManifestFile, [.unixFD(file), .vardict(options)]).first?.stringValue ?? ""
    }

    /// Starts `bundleID` without a URL and returns once it has checked in.
    public func launch(bundleID: String, options: LaunchRequestOptions = .init(), timeout: Duration = .seconds(60)) async throws(CourierError) -> LaunchReply {
        try LaunchReply(await call(Broker1.launch, [.string(bundleID), .vardict(options.dictionary)], timeout: timeout), of: Broker1.launch)
    }

    /// Terminates `bundleID` with notice, then launches it; returns once the new instance has
    /// checked in. Requests sent meanwhile are delivered to the new instance.
    public func restart(bundleID: String, options: LaunchRequestOptions = .init(), timeout: Duration = .seconds(60)) async throws(CourierError) -> LaunchReply {
        try LaunchReply(await call(Broker1.restart, [.string(bundleID), .vardict(options.dictionary)], timeout: timeout), of: Broker1.restart)
    }

    /// One dictionary per registered app (`bundle-id`, `name`, `schemes`, `state`, `pid`, `launchable`, `path`).
    public func listApplications() async throws(CourierError) -> [[String: DBusValue]] {
        try await call(Broker1.listApplications)[0].arrayValue?.compactMap(\.vardictValue) ?? []
    }

    /// The broker's own state (`pid`, `manifest-paths`, `started-by`, `applications`, `running`).
    public func status() async throws(CourierError) -> [String: DBusValue] {
        try await call(Broker1.getStatus)[0].vardictValue ?? [:]
    }

    /// One dictionary per app the broker has dealt with (`bundle-id`, `state`, `pid`, `started-by`,
    /// `uptime-ms`, `idle-ms`, `handled`, `queued`, `in-flight`, `rss-bytes`, `failures`).
    public func processes() async throws(CourierError) -> [[String: DBusValue]] {
        try await call(Broker1.listProcesses)[0].arrayValue?.compactMap(\.vardictValue) ?? []
    }
}
