public import DBus
public import CourierNames

/// `org.freedesktop.Notifications` (the Desktop Notifications Specification, 1.2), served by the
/// desktop's notification server at `/org/freedesktop/Notifications`. Courier calls it: nearby's
/// consent, the broker's launch images, the share sheet's desktop path.
public enum FreedesktopNotifications {
    public static let busName: BusName = "org.freedesktop.Notifications"
    public static let objectPath: ObjectPath = "/org/freedesktop/Notifications"
    public static let name: InterfaceName = "org.freedesktop.Notifications"

    /// `() → (as capabilities)`.
    public static let getCapabilities = ProtocolMethod(name, "GetCapabilities", results: "as", resultNames: ["capabilities"])
    /// `(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints,
    /// i expire_timeout) → (u id)`; `actions` alternate a key and its label.
    public static let notify = ProtocolMethod(
        name, "Notify", arguments: "susssasa{sv}i", results: "u",
        argumentNames: ["app_name", "replaces_id", "app_icon", "summary", "body", "actions", "hints", "expire_timeout"], resultNames: ["id"])
    /// `(u id) → ()`: withdraws the notification (the server then emits `NotificationClosed`).
    public static let closeNotification = ProtocolMethod(name, "CloseNotification", arguments: "u", argumentNames: ["id"])
    /// `(u id, s action_key)`: the person chose an action.
    public static let actionInvoked = ProtocolSignal(name, "ActionInvoked", arguments: "us", argumentNames: ["id", "action_key"])
    /// `(u id, u reason)`: 1 expired, 2 dismissed by the person, 3 `CloseNotification`, 4 other.
    public static let notificationClosed = ProtocolSignal(name, "NotificationClosed", arguments: "uu", argumentNames: ["id", "reason"])

    public static let interface = ProtocolInterface(
        name, methods: [getCapabilities, notify, closeNotification], signals: [actionInvoked, notificationClosed])

    /// `text` for a notification's body, which is markup (a subset of XML) to many servers: the
    /// five XML special characters as entities (``XMLText``).
    public static func markupEscaped(_ text: String) -> String {
        XMLText.escaped(text)
    }

    /// The hints Courier sets (the specification's "Hints").
    public enum Hint {
        /// `s`: a `file://` URI of the image to show.
        public static let imagePath = "image-path"
        /// `y`: 0 low, 1 normal, 2 critical.
        public static let urgency = "urgency"
        /// `b`: kept until the person or the sender closes it.
        public static let resident = "resident"
        /// `b`: not kept in the server's history.
        public static let transient = "transient"
    }

    /// The capability of a server that shows actions (`GetCapabilities`).
    public static let actionsCapability = "actions"
    /// The `NotificationClosed` reason of a notification the person dismissed.
    public static let dismissedReason: UInt32 = 2
}

/// The client side of `FreedesktopNotifications` on one connection, talking to the server that
/// owns the name when asked, by its unique name: only that server's signals are believed
/// (`signals(from:)`), since any process of the user on the bus can emit `ActionInvoked` from the
/// same path and interface.
public struct DesktopNotifications: Sendable {
    public let connection: DBusConnection

    public init(connection: DBusConnection) {
        self.connection = connection
    }

    typealias N = FreedesktopNotifications

    /// The unique name of the running notification server; nil when none runs (none is started
    /// for this: without a desktop session, nothing is shown).
    public func server() async -> BusName? {
        (try? await connection.nameOwner(of: N.busName)) ?? nil
    }

    /// The server's capabilities; empty when it does not answer within `timeout`.
    public func capabilities(of server: BusName, timeout: Duration = .seconds(5)) async -> [String] {
        (try? await N.getCapabilities.call(on: connection, server, path: N.objectPath, timeout: timeout))?.first?.stringArrayValue ?? []
    }

    /// Shows a notification; returns its id. `actions`: key and label pairs. `expire`: nil lets the
    /// server decide, zero never expires.
    public func notify(
        _ server: BusName, appName: String, icon: String = "", summary: String, body: String,
        actions: [(key: String, label: String)] = [], hints: [String: DBusValue] = [:], expire: Duration? = nil,
        timeout: Duration = .seconds(10)
    ) async throws(CourierError) -> UInt32 {
        let milliseconds = expire.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
        let values = try await N.notify.call(on: connection, server, path: N.objectPath, [
            .string(appName), .uint32(0), .string(icon), .string(summary), .string(body),
            .strings(actions.flatMap { [$0.key, $0.label] }), .vardict(hints), .int32(milliseconds),
        ], timeout: timeout)
        guard let id = values.first?.uint32Value else { throw CourierError(.bus, "the notification server answered Notify without an id") }
        return id
    }

    /// Withdraws notification `id`; a server that fails or has gone is not waited on beyond `timeout`.
    public func close(_ server: BusName, id: UInt32, timeout: Duration = .seconds(5)) async {
        _ = try? await N.closeNotification.call(on: connection, server, path: N.objectPath, [.uint32(id)], timeout: timeout)
    }

    /// `ActionInvoked` and `NotificationClosed` from `server` only, subscribed before this returns.
    public func signals(from server: BusName) async throws(CourierError) -> (actions: AsyncStream<DBusMessage>, closed: AsyncStream<DBusMessage>) {
        do {
            let actions = try await connection.signals(matching: MatchRule(sender: server, path: N.objectPath, interface: N.name, member: N.actionInvoked.name))
            let closed = try await connection.signals(matching: MatchRule(sender: server, path: N.objectPath, interface: N.name, member: N.notificationClosed.name))
            return (actions, closed)
        } catch {
            throw CourierError(wrapping: error)
        }
    }
}
