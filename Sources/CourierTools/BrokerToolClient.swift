public import CourierNames
public import CourierProtocol
public import DBus

/// How the user's tools (`courier-tool`, `courier-nearby`, the benchmark, the load harness, the
/// tests) call the broker: every `org.courier.Broker1` method a tool needs, on the connection it
/// gives — the session bus, or a private bus of a test — with the protocol's typed requests and
/// replies. An app links the library `Courier` instead, whose `BrokerClient` offers what an app
/// asks of the broker and nothing of this.
public struct BrokerToolClient: Sendable {
    public let connection: DBusConnection

    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// A client on the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws(CourierError) -> BrokerToolClient {
        do {
            return BrokerToolClient(connection: try DBusConnection.session())
        } catch {
            throw CourierError(.brokerUnavailable, "cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set? Run inside a desktop session or dbus-run-session")
        }
    }

    /// Opens `url` in the app that owns it (or `options.bundleID`), launching it if needed.
    public func open(_ url: String, options: OpenRequestOptions = .init()) async throws(CourierError) -> OpenURLReply {
        try options.checkAnnotationSize()
        let timeout = (options.timeout ?? .seconds(25)) + .seconds(15)   // the broker may have to launch first
        return try OpenURLReply(reply: await Broker1.openURL.callMessage(on: connection, Broker1.busName, path: Broker1.objectPath, options.body(url: url), timeout: timeout))
    }

    /// Sends `url` without waiting for the answer (`courier open --no-wait`).
    public func openWithoutReply(_ url: String, options: OpenRequestOptions = .init()) throws(CourierError) {
        try options.checkAnnotationSize()
        try Broker1.openURL.callNoReply(on: connection, Broker1.busName, path: Broker1.objectPath, options.body(url: url))
    }

    /// Whether some app can open `url`.
    public func canOpen(_ url: String) async throws(CourierError) -> Bool {
        try await call(Broker1.canOpenURL, [.string(url)])[0].boolValue ?? false
    }

    /// The apps that can open `url`, the chosen one first.
    public func handlers(for url: String) async throws(CourierError) -> [String] {
        try await call(Broker1.handlersForURL, [.string(url)])[0].stringArrayValue ?? []
    }

    /// Registers the manifest at `path`; `replace` confirms taking over a running app
    /// (`RegisterManifestWithOptions`). Returns its bundle id.
    public func registerManifest(atPath path: String, replace: Bool = false) async throws(CourierError) -> String {
        let values = replace
            ? try await call(Broker1.registerManifestWithOptions, [.string(path), .vardict([String: DBusValue](CourierKey.replace(true)))])
            : try await call(Broker1.registerManifest, [.string(path)])
        return values[0].stringValue ?? ""
    }

    /// Registers the manifest open as `file` (`RegisterManifestFile`): the broker reads the
    /// descriptor, so it reads only what this process could open, and answers with the manifest's
    /// diagnostics; `path` (absolute) must name the same file, and is what the registry knows it by.
    public func registerManifest(file: UnixFD, path: String, replace: Bool = false) async throws(CourierError) -> String {
        var options = [String: DBusValue](CourierKey.path(path))
        if replace { options[CourierKey.replace] = true }
        return try await call(Broker1.registerManifestFile, [.unixFD(file), .vardict(options)]).first?.stringValue ?? ""
    }

    public func unregister(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.unregister, [.string(bundleID)])
    }

    /// Terminates `bundleID` with notice; `stateChanges` tells when it is gone.
    public func terminate(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.terminate, [.string(bundleID)])
    }

    /// Kills `bundleID` with SIGKILL, without notice (`courier quit --force`).
    public func kill(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.kill, [.string(bundleID)])
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

    /// `ApplicationStateChanged` signals, for one app or all.
    public func stateChanges(of bundleID: String? = nil) async throws(CourierError) -> AsyncStream<ApplicationStateChange> {
        let rule = Broker1.applicationStateChanged.matchRule(path: Broker1.objectPath, arguments: bundleID.map { [0: $0] } ?? [:])
        let messages: AsyncStream<DBusMessage>
        do {
            messages = try await connection.signals(matching: rule)
        } catch {
            throw CourierError(wrapping: error)
        }
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages {
                    guard let change = ApplicationStateChange(message.body) else { continue }
                    continuation.yield(change)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether a broker owns `org.courier.Broker` right now (no activation).
    public func brokerIsRunning() async -> Bool {
        ((try? await connection.nameOwner(of: Broker1.busName)) ?? nil) != nil
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

    /// Calls `method` of the broker on this client's connection.
    public func call(_ method: ProtocolMethod, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws(CourierError) -> [DBusValue] {
        try await Broker1.call(method, on: connection, arguments, timeout: timeout)
    }
}
