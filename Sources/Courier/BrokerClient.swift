public import CourierNames
import DBus
import CourierProtocol
import FoundationEssentials

/// Talks to the broker: the `UIApplication.openURL` / `canOpenURL` of Courier, used by apps and by
/// the `courier` CLI. Every call is one `org.courier.Broker1` method; broker errors come back as
/// `CourierError` with the broker's code and message.
public struct BrokerClient: Sendable {
    let connection: DBusConnection

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// A client on the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws(CourierError) -> BrokerClient {
        do {
            return BrokerClient(connection: try DBusConnection.session())
        } catch {
            throw CourierError(.brokerUnavailable, "cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set? Run inside a desktop session or dbus-run-session")
        }
    }

    /// Opens `url` in the app that owns it, launching it if needed.
    public func open(_ url: String, options: OpenOptions = .init()) async throws(CourierError) -> OpenResult {
        let request = options.request
        try request.checkAnnotationSize()
        let timeout = (options.timeout ?? .seconds(25)) + .seconds(15)   // the broker may have to launch first
        let reply = try OpenURLReply(reply: await Broker1.openURL.callMessage(on: connection, Broker1.busName, path: Broker1.objectPath, request.body(url: url), timeout: timeout))
        return OpenResult(handled: reply.handled, bundleID: reply.bundleID, reply: reply.reply.courierValues)
    }

    /// Sends `url` without waiting for the answer (`courier open --no-wait`).
    public func openWithoutReply(_ url: String, options: OpenOptions = .init()) throws(CourierError) {
        let request = options.request
        try request.checkAnnotationSize()
        try Broker1.openURL.callNoReply(on: connection, Broker1.busName, path: Broker1.objectPath, request.body(url: url))
    }

    /// Whether some app can open `url` (for an app caller, only schemes its manifest lists in
    /// `LSApplicationQueriesSchemes`).
    public func canOpen(_ url: String) async throws(CourierError) -> Bool {
        try await call(Broker1.canOpenURL, [.string(url)])[0].boolValue ?? false
    }

    /// The apps that can open `url`, the chosen one first.
    public func handlers(for url: String) async throws(CourierError) -> [String] {
        try await call(Broker1.handlersForURL, [.string(url)])[0].stringArrayValue ?? []
    }

    /// Called by an app when it is ready: its launch options, with the unique name of the broker
    /// that answered (the bus sets a reply's sender).
    func checkInAnswer(bundleID: String) async throws(CourierError) -> (options: [String: DBusValue], broker: BusName?) {
        let reply = try await Broker1.checkIn.callMessage(on: connection, Broker1.busName, path: Broker1.objectPath, [.string(bundleID)])
        return (reply.body[0].vardictValue ?? [:], reply.sender)
    }

    /// Registers the manifest at `path` (a file the broker can read); returns its bundle id. With
    /// `replace`, the caller confirms that it may take over a running app (its bundle id pointed at
    /// another executable, or a scheme it handles): without it the broker refuses such a change
    /// with `NotPermitted` (`RegisterManifestWithOptions`).
    public func registerManifest(atPath path: String, replace: Bool = false) async throws(CourierError) -> String {
        let values = replace
            ? try await call(Broker1.registerManifestWithOptions, [.string(path), .vardict([String: DBusValue](CourierKey.replace(true)))])
            : try await call(Broker1.registerManifest, [.string(path)])
        return values[0].stringValue ?? ""
    }

    public func unregister(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.unregister, [.string(bundleID)])
    }

    /// Terminates `bundleID` with notice (`WillTerminate`, then SIGTERM, then SIGKILL). Returns once
    /// the notice is under way; `stateChanges` tells when the app is gone.
    public func terminate(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.terminate, [.string(bundleID)])
    }

    /// Kills `bundleID` with SIGKILL, without notice (`courier quit --force`). Returns once the
    /// signal is sent; `stateChanges` tells when the app is gone.
    public func kill(bundleID: String) async throws(CourierError) {
        _ = try await call(Broker1.kill, [.string(bundleID)])
    }

    /// `ApplicationStateChanged` signals as (bundle id, state, pid), for one app or all.
    public func stateChanges(of bundleID: String? = nil) async throws(CourierError) -> AsyncStream<(bundleID: String, state: String, pid: UInt32)> {
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
                    continuation.yield((change.bundleID, change.state, change.pid))
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

    private func call(_ method: ProtocolMethod, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws(CourierError) -> [DBusValue] {
        try await Broker1.call(method, on: connection, arguments, timeout: timeout)
    }
}
