public import DBus
import Foundation

/// Consent through the desktop's notification daemon (`org.freedesktop.Notifications`, which every
/// Linux desktop's notification server speaks): a notification with Accept and Decline actions;
/// the session is accepted only on `ActionInvoked(id, "accept")`. Closing the notification, the
/// Decline action, or no answer within `timeout` declines (and the notification is withdrawn).
///
/// Only the server that shows the notification can answer it: `Notify` goes to the unique name
/// that owns `org.freedesktop.Notifications` when asked, and only that name's signals count. Any
/// other process of the user on the bus can emit `ActionInvoked(id, "accept")` with a guessed id;
/// matched on the well-known name alone, that would let a sender in without a person.
public struct DesktopNotificationPrompt: ConsentPrompt {
    public let connection: DBusConnection
    public var timeout: Duration

    static let name: BusName = "org.freedesktop.Notifications"
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"

    public init(connection: DBusConnection, timeout: Duration = .seconds(45)) {
        self.connection = connection
        self.timeout = timeout
    }

    /// Whether a notification server that supports actions is on the bus.
    public func isAvailable() async -> Bool {
        guard let values = try? await connection.call(Self.name, path: Self.path, interface: Self.interface, method: "GetCapabilities", timeout: .seconds(5)),
              let capabilities = values.first?.stringArrayValue else { return false }
        return capabilities.contains("actions")
    }

    public func ask(_ request: ConsentRequest) async -> Bool {
        do {
            guard let server = try await connection.nameOwner(of: Self.name) else { return false }
            let actions = try await connection.signals(matching: MatchRule(sender: server, path: Self.path, interface: Self.interface, member: "ActionInvoked"))
            let closed = try await connection.signals(matching: MatchRule(sender: server, path: Self.path, interface: Self.interface, member: "NotificationClosed"))
            let values = try await connection.call(server, path: Self.path, interface: Self.interface, method: "Notify", [
                .string("Courier Nearby"), .uint32(0), .string("document-send"),
                .string("Files from \(request.alias)"), .string(request.summary),
                .strings(["accept", "Accept", "decline", "Decline"]),
                .vardict(["urgency": .byte(2), "resident": .boolean(true)]),
                .int32(Int32(timeout.components.seconds * 1000)),
            ], timeout: .seconds(10))
            guard let id = values.first?.uint32Value else { return false }
            let answer = await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    for await signal in actions where signal.body.first?.uint32Value == id {
                        return signal.body.count > 1 && signal.body[1].stringValue == "accept"
                    }
                    return nil
                }
                group.addTask {
                    for await signal in closed where signal.body.first?.uint32Value == id { return false }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return false
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? false
            }
            _ = try? await connection.call(server, path: Self.path, interface: Self.interface, method: "CloseNotification", [.uint32(id)], timeout: .seconds(5))
            return answer
        } catch {
            return false
        }
    }

    /// A notification without actions, for what the user must know at once (the PIN budget spent);
    /// false when no notification server took it.
    @discardableResult
    public func tell(_ summary: String, _ body: String) async -> Bool {
        let values = try? await connection.call(Self.name, path: Self.path, interface: Self.interface, method: "Notify", [
            .string("Courier Nearby"), .uint32(0), .string("dialog-warning"), .string(summary), .string(body),
            .strings([]), .vardict(["urgency": .byte(2), "resident": .boolean(true)]), .int32(0),
        ], timeout: .seconds(10))
        return values?.first?.uint32Value != nil
    }
}
