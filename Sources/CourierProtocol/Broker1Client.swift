public import CourierNames
public import DBus

/// The calling side of `Broker1` on one connection: each call's arguments encoded and its reply
/// decoded by the declaration. The app library's `BrokerClient` wraps it (in an app's types), the
/// tools' `Broker1Client` (CourierTools) is it with the calls only tools make.
public struct Broker1Client: Sendable {
    public let connection: DBusConnection

    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// A client on the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws(CourierError) -> Broker1Client {
        do {
            return Broker1Client(connection: try DBusConnection.session())
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

    /// Whether some app can open `url` (for an app caller, only schemes its manifest lists in
    /// `LSApplicationQueriesSchemes`).
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

    /// Calls `method` of the broker on this client's connection.
    public func call(_ method: ProtocolMethod, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws(CourierError) -> [DBusValue] {
        try await Broker1.call(method, on: connection, arguments, timeout: timeout)
    }
}
