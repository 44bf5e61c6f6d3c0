public import CourierNames
package import DBus
import FoundationEssentials

/// Talks to the broker: the `UIApplication.openURL` / `canOpenURL` of Courier, used by apps and by
/// the `courier` CLI. Every call is one `org.courier.Broker1` method; broker errors come back as
/// `CourierError` with the broker's code and message.
public struct BrokerClient: Sendable {
    package let connection: DBusConnection

    package init(connection: DBusConnection) {
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
        try Self.checkAnnotationSize(options)
        let timeout = (options.timeout ?? .seconds(25)) + .seconds(15)   // the broker may have to launch first
        let values = try await call("OpenURL", [.string(url), .vardict(options.dictionary)], timeout: timeout)
        guard values.count == 3, let handled = values[0].boolValue, let bundleID = values[1].stringValue else {
            throw CourierError(.bus, "the broker answered OpenURL with an unexpected signature")
        }
        return OpenResult(handled: handled, bundleID: bundleID, reply: (values[2].vardictValue ?? [:]).courierValues)
    }

    /// Sends `url` without waiting for the answer (`courier open --no-wait`).
    public func openWithoutReply(_ url: String, options: OpenOptions = .init()) throws(CourierError) {
        try Self.checkAnnotationSize(options)
        do {
            try connection.callNoReply(CourierBus.brokerName, path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, method: "OpenURL", [.string(url), .vardict(options.dictionary)])
        } catch {
            throw CourierError(wrapping: error)
        }
    }

    /// `LimitsExceeded` at once for an annotation the broker would refuse anyway
    /// (`CourierLimits.maximumAnnotationBytes`): not sent, not copied again.
    private static func checkAnnotationSize(_ options: OpenOptions) throws(CourierError) {
        if let size = options.annotation?.dbusValue.byteCount, size > CourierLimits.maximumAnnotationBytes {
            throw CourierError(.limitsExceeded, CourierLimits.annotationTooLarge(size))
        }
    }

    /// Whether some app can open `url` (for an app caller, only schemes its manifest lists in
    /// `LSApplicationQueriesSchemes`).
    public func canOpen(_ url: String) async throws(CourierError) -> Bool {
        let values = try await call("CanOpenURL", [.string(url)])
        return values.first?.boolValue ?? false
    }

    /// The apps that can open `url`, the chosen one first.
    public func handlers(for url: String) async throws(CourierError) -> [String] {
        let values = try await call("HandlersForURL", [.string(url)])
        return values.first?.stringArrayValue ?? []
    }

    /// Called by an app when it is ready; returns its launch options.
    package func checkIn(bundleID: String) async throws(CourierError) -> [String: DBusValue] {
        try await checkInAnswer(bundleID: bundleID).options
    }

    /// `checkIn`, with the unique name of the broker that answered (the bus sets a reply's sender).
    func checkInAnswer(bundleID: String) async throws(CourierError) -> (options: [String: DBusValue], broker: BusName?) {
        do {
            let reply = try await connection.callMessage(
                CourierBus.brokerName, path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, method: "CheckIn", [.string(bundleID)])
            return (reply.body.first?.vardictValue ?? [:], reply.sender)
        } catch {
            throw CourierError(wrapping: error)
        }
    }

    /// Registers the manifest at `path` (a file the broker can read); returns its bundle id. With
    /// `replace`, the caller confirms that it may take over a running app (its bundle id pointed at
    /// another executable, or a scheme it handles): without it the broker refuses such a change
    /// with `NotPermitted` (`RegisterManifestWithOptions`).
    public func registerManifest(atPath path: String, replace: Bool = false) async throws(CourierError) -> String {
        let values = replace
            ? try await call("RegisterManifestWithOptions", [.string(path), .vardict(["replace": .boolean(true)])])
            : try await call("RegisterManifest", [.string(path)])
        return values.first?.stringValue ?? ""
    }

    /// Registers the manifest open as `file` (`RegisterManifestFile`): the broker reads the
    /// descriptor, so it reads only what this process could open, and answers with the manifest's
    /// diagnostics; `path` (absolute) must name the same file, and is what the registry knows it by.
    package func registerManifest(file: UnixFD, path: String, replace: Bool = false) async throws(CourierError) -> String {
        var options: [String: DBusValue] = ["path": .string(path)]
        if replace { options["replace"] = .boolean(true) }
        let values = try await call("RegisterManifestFile", [.unixFD(file), .vardict(options)])
        return values.first?.stringValue ?? ""
    }

    public func unregister(bundleID: String) async throws(CourierError) {
        _ = try await call("Unregister", [.string(bundleID)])
    }

    /// One dictionary per registered app (`bundle-id`, `name`, `schemes`, `state`, `pid`, `launchable`, `path`).
    package func listApplications() async throws(CourierError) -> [[String: DBusValue]] {
        let values = try await call("ListApplications", [])
        return values.first?.arrayValue?.compactMap(\.vardictValue) ?? []
    }

    /// The broker's own state (`pid`, `manifest-paths`, `started-by`, `applications`, `running`).
    package func status() async throws(CourierError) -> [String: DBusValue] {
        let values = try await call("GetStatus", [])
        return values.first?.vardictValue ?? [:]
    }

    /// One dictionary per app the broker has dealt with (`bundle-id`, `state`, `pid`, `started-by`,
    /// `uptime-ms`, `idle-ms`, `handled`, `queued`, `in-flight`, `rss-bytes`, `failures`).
    package func processes() async throws(CourierError) -> [[String: DBusValue]] {
        let values = try await call("ListProcesses", [])
        return values.first?.arrayValue?.compactMap(\.vardictValue) ?? []
    }

    /// Terminates `bundleID` with notice (`WillTerminate`, then SIGTERM, then SIGKILL). Returns once
    /// the notice is under way; `stateChanges` tells when the app is gone.
    public func terminate(bundleID: String) async throws(CourierError) {
        _ = try await call("Terminate", [.string(bundleID)])
    }

    /// `ApplicationStateChanged` signals as (bundle id, state, pid), for one app or all.
    public func stateChanges(of bundleID: String? = nil) async throws(CourierError) -> AsyncStream<(bundleID: String, state: String, pid: UInt32)> {
        let rule = MatchRule(
            path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, member: "ApplicationStateChanged",
            arguments: bundleID.map { [0: $0] } ?? [:]
        )
        let messages: AsyncStream<DBusMessage>
        do {
            messages = try await connection.signals(matching: rule)
        } catch {
            throw CourierError(wrapping: error)
        }
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages {
                    guard message.body.count == 3, let id = message.body[0].stringValue, let state = message.body[1].stringValue,
                          let pid = message.body[2].uint32Value else { continue }
                    continuation.yield((id, state, pid))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether a broker owns `org.courier.Broker` right now (no activation).
    public func brokerIsRunning() async -> Bool {
        ((try? await connection.nameOwner(of: CourierBus.brokerName)) ?? nil) != nil
    }

    private func call(_ method: MemberName, _ arguments: [DBusValue], timeout: Duration = .seconds(25)) async throws(CourierError) -> [DBusValue] {
        do {
            return try await connection.call(CourierBus.brokerName, path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, method: method, arguments, timeout: timeout)
        } catch {
            throw CourierError(wrapping: error)
        }
    }
}
