import DBus
public import CourierNames
import CourierProtocol

/// The share sheet in a desktop session: one notification whose actions are the activities, on
/// the desktop's notification server (`org.freedesktop.Notifications`, the path nearby's consent
/// uses). The person's click (`ActionInvoked`) is the choice; closing the notification, or no
/// answer within `timeout`, dismisses (`Dismissed`); the notification is withdrawn either way.
///
/// "Save to…" is offered there only when a desktop portal runs (`folders`): its folder dialog
/// then asks where (`PortalFolderChooser`); without one a notification cannot ask for a folder
/// (name it with `--activity save-to --folder`). A nearby send goes to the device
/// `courier nearby send` finds itself.
/// "Share via link" is not offered: its address and PIN are printed where `courier nearby serve`
/// runs, which a click on a notification has no terminal for.
///
/// Only the server that shows the notification can answer: `Notify` goes to the unique name
/// that owns `org.freedesktop.Notifications` when asked and only that name's signals count, and
/// only an action key the sheet offered is a choice — another process of the user forging
/// `ActionInvoked`, or a server inventing a key, chooses nothing.
public struct NotificationShareChooser: ShareChooser {
    let connection: DBusConnection
    /// The unique name that owned `org.freedesktop.Notifications` when asked: only it can answer.
    let server: BusName
    public var timeout: Duration
    /// The desktop portal's folder dialog, for "Save to…" (nil: not offered, unless
    /// `looksForPortal`).
    public var folders: PortalFolderChooser?
    /// Looks for a portal (`PortalFolderChooser.onDesktop`) when "Save to…" fits and `folders` is
    /// nil, so a share without it neither asks the bus nor starts a portal.
    var looksForPortal = false

    /// The kinds the notification offers without a folder dialog.
    public static let offeredKinds: Set<String> = Set([ShareActivityKind.openIn, .app, .copy, .nearby].map(\.rawValue))

    /// The chooser on the notification server running on the bus `broker` is on, when one runs
    /// and shows actions; otherwise the reason none can ask (`NobodyToAsk`).
    public static func onDesktop(_ broker: BrokerClient, timeout: Duration = .seconds(120)) async throws(CourierError) -> NotificationShareChooser {
        let connection = broker.connection
        let notifications = DesktopNotifications(connection: connection)
        guard let server = await notifications.server() else {
            throw CourierError(.nobodyToAsk, "nobody can be asked to choose an activity: there is no terminal, and no desktop notification server (org.freedesktop.Notifications) on the session bus; name one with --activity ID (list them with --list)")
        }
        guard await notifications.capabilities(of: server).contains(FreedesktopNotifications.actionsCapability) else {
            throw CourierError(.nobodyToAsk, "nobody can be asked to choose an activity: there is no terminal, and the desktop's notification server does not show actions; name one with --activity ID (list them with --list)")
        }
        var chooser = NotificationShareChooser(connection: connection, server: server, timeout: timeout)
        chooser.looksForPortal = true
        return chooser
    }

    init(connection: DBusConnection, server: BusName, timeout: Duration = .seconds(120), folders: PortalFolderChooser? = nil) {
        self.connection = connection
        self.server = server
        self.timeout = timeout
        self.folders = folders
    }

    public func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice {
        var folders = folders
        if folders == nil, looksForPortal, activities.contains(where: { $0.kind == ShareActivity.saveTo }) {
            folders = await PortalFolderChooser.onDesktop(connection)
        }
        let offered = activities.filter { Self.offeredKinds.contains($0.kind) || (folders != nil && $0.kind == ShareActivity.saveTo) }
        guard !offered.isEmpty else {
            throw CourierError(.nobodyToAsk, "the desktop notification cannot offer \(activities.map(\.id).joined(separator: ", ")) (a folder must be named, and no desktop portal runs to ask for one); run one with --activity ID")
        }
        let notifications = DesktopNotifications(connection: connection)
        let (actions, closed) = try await notifications.signals(from: server)
        let labels = items.map { CleanText.escaped($0) }
        let summary = labels.count == 1 ? "Share \(labels[0])" : "Share \(labels.count) items"
        let id = try await notifications.notify(
            server, appName: "Courier", icon: "document-send", summary: String(summary.prefix(120)),
            body: FreedesktopNotifications.markupEscaped(labels.prefix(5).joined(separator: "\n") + (labels.count > 5 ? "\n…" : "")),
            actions: offered.map { ($0.id, $0.title) },
            hints: [FreedesktopNotifications.Hint.resident: .boolean(true), FreedesktopNotifications.Hint.urgency: .byte(1)],
            expire: timeout)
        let timeout = timeout
        let chosen = await withTaskGroup(of: ShareActivity??.self) { group in
            group.addTask {
                for await signal in actions where FreedesktopNotifications.actionInvoked.matches(signal.body) && signal.body[0].uint32Value == id {
                    if let key = signal.body[1].stringValue, let activity = offered.first(where: { $0.id == key }) { return .some(activity) }
                }
                return nil
            }
            group.addTask {
                for await signal in closed where FreedesktopNotifications.notificationClosed.matches(signal.body) && signal.body[0].uint32Value == id {
                    return .some(nil)
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .some(nil)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
        await notifications.close(server, id: id)
        guard let activity = chosen else {
            throw CourierError(.dismissed, "the share notification was closed or not answered; nothing was shared")
        }
        if activity.kind == ShareActivity.saveTo, let folders {
            return ShareChoice(activity: activity, folder: try await folders.chooseFolder(for: items))
        }
        return ShareChoice(activity: activity)
    }
}
