import DBus
import CourierProtocol
import FoundationEssentials

/// The folder for "Save to…", asked of the person with the desktop's own folder dialog through
/// the desktop portal (`org.freedesktop.portal.FileChooser.OpenFile` with `directory`, docs/share.md):
/// the portal has no share sheet, but it is how a desktop session asks for a place to save. The
/// dialog cancelled is `Dismissed`; any other end of it, or an answer that is not a local folder,
/// is `Failed`, and nothing is saved.
///
/// Only the portal that owns `org.freedesktop.portal.Desktop` when asked can answer, and only at
/// the path of this request: a `Response` forged by another process of the user chooses nothing.
/// The portal itself is as trusted as the person's screen: the folder it answers is where the
/// files go (as new files: nothing is overwritten, no symbolic link followed).
public struct PortalFolderChooser: Sendable {
    let fileChooser: DesktopPortalFileChooser
    /// How long the dialog may stay unanswered; then it is closed and the share dismissed.
    public var timeout: Duration

    /// The chooser on the portal of the session bus `broker` is on, when one runs there (or the
    /// bus can start it) and its file chooser chooses folders; nil otherwise.
    public static func onDesktop(_ broker: BrokerClient, timeout: Duration = .seconds(600)) async -> PortalFolderChooser? {
        await onDesktop(broker.connection, timeout: timeout)
    }

    static func onDesktop(_ connection: DBusConnection, timeout: Duration = .seconds(600)) async -> PortalFolderChooser? {
        guard let fileChooser = await DesktopPortalFileChooser.onBus(connection) else { return nil }
        return PortalFolderChooser(fileChooser: fileChooser, timeout: timeout)
    }

    /// The folder the person chose for `items` (their labels, for the dialog's title).
    public func chooseFolder(for items: [String]) async throws(CourierError) -> String {
        let labels = items.map { CleanText.escaped($0) }
        let title = labels.count == 1 ? "Save \(labels[0].prefix(200)) to…" : "Save \(labels.count) items to…"
        switch try await fileChooser.chooseFolder(title: title, acceptLabel: "Save", timeout: timeout) {
        case .chosen(let uris):
            guard let uri = uris.first else {
                throw CourierError(.failed, "the desktop portal's folder dialog answered without a folder; nothing was saved")
            }
            guard let folder = Self.localPath(uri) else {
                throw CourierError(.failed, "the desktop portal answered '\(CleanText.escaped(uri.prefix(200)))', not a local folder (file:///…); nothing was saved")
            }
            return folder
        case .cancelled:
            throw CourierError(.dismissed, "the folder dialog was dismissed; nothing was saved")
        case .ended(let code):
            throw CourierError(.failed, "the desktop portal's folder dialog ended without a folder (response \(code)); nothing was saved. Name one with --activity save-to --folder DIR")
        case .timedOut:
            throw CourierError(.dismissed, "no folder was chosen within \(timeout.components.seconds) s; the dialog was closed and nothing was saved")
        case .portalLeft:
            throw CourierError(.failed, "the desktop portal left the session bus before a folder was chosen; nothing was saved")
        case .abandoned:
            throw CourierError(.dismissed, "the share was cancelled while the folder dialog was up; the dialog was closed and nothing was saved")
        }
    }

    /// The absolute path a `file://` URI names on this machine (no host, or `localhost`), nil for
    /// anything else.
    static func localPath(_ uri: String) -> String? {
        guard let url = URL(string: uri), url.scheme?.lowercased() == "file",
              (url.host ?? "").isEmpty || url.host == "localhost" else { return nil }
        let path = url.path(percentEncoded: false)
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return nil }
        return path
    }
}
