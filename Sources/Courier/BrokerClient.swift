public import CourierNames
import DBus
import CourierProtocol

/// Talks to the broker: the `UIApplication.openURL` / `canOpenURL` of Courier. Every call is one
/// `org.courier.Broker1` method; broker errors come back as `CourierError` with the broker's code
/// and message.
public struct BrokerClient: Sendable {
    /// The protocol's client, whose calls these are (in an app's types).
    let client: Broker1Client
    var connection: DBusConnection { client.connection }

    init(connection: DBusConnection) {
        self.client = Broker1Client(connection: connection)
    }

    /// A client on the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws(CourierError) -> BrokerClient {
        BrokerClient(connection: try Broker1Client.session().connection)
    }

    /// Opens `url` in the app that owns it, launching it if needed.
    public func open(_ url: String, options: OpenOptions = .init()) async throws(CourierError) -> OpenResult {
        let reply = try await client.open(url, options: options.request)
        return OpenResult(handled: reply.handled, bundleID: reply.bundleID, reply: reply.reply.courierValues)
    }

    /// Sends `url` without waiting for the answer.
    public func openWithoutReply(_ url: String, options: OpenOptions = .init()) throws(CourierError) {
        try client.openWithoutReply(url, options: options.request)
    }

    /// Whether some app can open `url` (for an app caller, only schemes its manifest lists in
    /// `LSApplicationQueriesSchemes`).
    public func canOpen(_ url: String) async throws(CourierError) -> Bool { try await client.canOpen(url) }

    /// The apps that can open `url`, the chosen one first.
    public func handlers(for url: String) async throws(CourierError) -> [String] { try await client.handlers(for: url) }

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
        try await client.registerManifest(atPath: path, replace: replace)
    }

    public func unregister(bundleID: String) async throws(CourierError) { try await client.unregister(bundleID: bundleID) }

    /// Terminates `bundleID` with notice (`WillTerminate`, then SIGTERM, then SIGKILL). Returns once
    /// the notice is under way; `stateChanges` tells when the app is gone.
    public func terminate(bundleID: String) async throws(CourierError) { try await client.terminate(bundleID: bundleID) }

    /// Kills `bundleID` with SIGKILL, without notice. Returns once the signal is sent;
    /// `stateChanges` tells when the app is gone.
    public func kill(bundleID: String) async throws(CourierError) { try await client.kill(bundleID: bundleID) }

    /// `ApplicationStateChanged` signals as (bundle id, state, pid), for one app or all.
    public func stateChanges(of bundleID: String? = nil) async throws(CourierError) -> AsyncStream<(bundleID: String, state: String, pid: UInt32)> {
        let changes = try await client.stateChanges(of: bundleID)
        return AsyncStream { continuation in
            let task = Task {
                for await change in changes { continuation.yield((change.bundleID, change.state, change.pid)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether a broker owns `org.courier.Broker` right now (no activation).
    public func brokerIsRunning() async -> Bool { await client.brokerIsRunning() }
}
