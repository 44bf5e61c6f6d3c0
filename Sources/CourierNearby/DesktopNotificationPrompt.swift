public import DBus
import CourierProtocol
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

    public init(connection: DBusConnection, timeout: Duration = .seconds(45)) {
        self.connection = connection
        self.timeout = timeout
    }

    private var notifications: DesktopNotifications { DesktopNotifications(connection: connection) }

    /// Whether a notification server that supports actions is on the bus.
    public func isAvailable() async -> Bool {
        guard let server = await notifications.server() else { return false }
        return await notifications.capabilities(of: server).contains(FreedesktopNotifications.actionsCapability)
    }

    public func ask(_ request: ConsentRequest) async -> Bool {
        let notifications = notifications
        do {
            guard let server = await notifications.server() else { return false }
            let (actions, closed) = try await notifications.signals(from: server)
            let id = try await notifications.notify(
                server, appName: "Courier Nearby", icon: "document-send", summary: request.title, body: FreedesktopNotifications.markupEscaped(request.summary),
                actions: [("accept", request.acceptLabel), ("decline", "Decline")],
                hints: [FreedesktopNotifications.Hint.urgency: .byte(2), FreedesktopNotifications.Hint.resident: .boolean(true)], expire: timeout)
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
            await notifications.close(server, id: id)
            return answer
        } catch {
            return false
        }
    }

    /// A notification without actions, for what the user must know at once (the PIN budget spent);
    /// false when no notification server took it.
    @discardableResult
    public func tell(_ summary: String, _ body: String) async -> Bool {
        guard let server = await notifications.server() else { return false }
        let id = try? await notifications.notify(
            server, appName: "Courier Nearby", icon: "dialog-warning", summary: summary, body: body,
            hints: [FreedesktopNotifications.Hint.urgency: .byte(2), FreedesktopNotifications.Hint.resident: .boolean(true)], expire: .zero)
        return id != nil
    }
}
