import CourierManifest
import CourierNames
import CourierProtocol
import DBus
import Foundation
import Logging
import Synchronization

/// Where and when the broker shows launch images (docs/manifest.md, "Launch images").
public struct LaunchImageSettings: Sendable {
    /// The default delay: a launch that checks in sooner shows nothing.
    public static let defaultDelay = Duration.milliseconds(150)

    /// How long a launch for a URL may go without the app checking in before its image is shown.
    public var delay: Duration
    /// The broker's own folder (created 0700) where the checked copy of each image shown is
    /// written, so that the notification server reads the bytes the broker checked.
    public var folder: String

    public init(delay: Duration = LaunchImageSettings.defaultDelay, folder: String) {
        self.delay = delay
        self.folder = folder
    }
}

/// Shows an app's launch image while the broker cold-launches it for a URL and the app has not
/// checked in within `LaunchImageSettings.delay`: a notification on the desktop's notification
/// server with the app's name and the image of the URL's scheme (`<base>-<scheme>.png`, checked
/// when the manifest was loaded and read again here), withdrawn the moment the launch is over —
/// checked in, failed or timed out. Apps without an image for the scheme, and sessions without a
/// notification server, show nothing.
///
/// It never delays a launch: it follows the dispatcher's events (called on the runner's thread,
/// outside its lock, so the work there is a dictionary update) and talks to the notification
/// server from its own task. The server is not trusted to be quick or sane: each call is bounded,
/// its answer is checked against the declared signature, and a notification it shows after the
/// launch ended is withdrawn at once.
final class LaunchImagePresenter: Sendable {
    let settings: LaunchImageSettings
    let notifications: DesktopNotifications
    let descriptors: @Sendable (String) -> AppDescriptor?
    let executor: (any TaskExecutor)?
    let logger: Logger
    private let shows = Mutex<[String: Show]>([:])
    private let tokens = Atomic<UInt64>(0)

    /// One launch's image: waiting for the delay (`task`), then shown (`shown`).
    private struct Show {
        let token: UInt64
        var task: Task<Void, Never>?
        var shown: (server: BusName, id: UInt32)?
    }

    init(settings: LaunchImageSettings, connection: DBusConnection, executor: (any TaskExecutor)?, logger: Logger,
         descriptors: @escaping @Sendable (String) -> AppDescriptor?) {
        self.settings = settings
        self.notifications = DesktopNotifications(connection: connection)
        self.descriptors = descriptors
        self.executor = executor
        self.logger = logger
    }

    func observe(_ event: DispatcherEvent) {
        switch event {
        case .launching(let bundleID, let url):
            // Launch images are the scheme's: a launch without a URL shows none.
            if let url { launching(bundleID, url: url) }
        case .checkedIn(let bundleID):
            launchEnded(bundleID)
        case .stateChanged(let bundleID, let state):
            if case .launching = state { return }
            launchEnded(bundleID)
        case .delivering, .delivered:
            break
        }
    }

    private func launching(_ bundleID: String, url: String) {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard let descriptor = descriptors(bundleID), let path = descriptor.launchImages[scheme] else { return }
        let token = tokens.add(1, ordering: .relaxed).newValue
        let previous = shows.withLock { $0.updateValue(Show(token: token), forKey: bundleID) }
        if let previous { withdraw(previous) }
        let task = Task(executorPreference: executor) { [self] in
            try? await Task.sleep(for: settings.delay)
            guard !Task.isCancelled else { return }
            await show(bundleID, token: token, name: descriptor.name, scheme: scheme, path: path, expire: descriptor.launchTimeout)
        }
        shows.withLock { if $0[bundleID]?.token == token { $0[bundleID]?.task = task } }
    }

    private func launchEnded(_ bundleID: String) {
        guard let ended = shows.withLock({ $0.removeValue(forKey: bundleID) }) else { return }
        withdraw(ended)
    }

    private func withdraw(_ show: Show) {
        show.task?.cancel()
        guard let shown = show.shown else { return }
        Task(executorPreference: executor) { [notifications] in await notifications.close(shown.server, id: shown.id) }
    }

    /// Whether `token` is still the launch of `bundleID` in progress.
    private func isCurrent(_ bundleID: String, _ token: UInt64) -> Bool {
        shows.withLock { $0[bundleID]?.token == token }
    }

    private func show(_ bundleID: String, token: UInt64, name: String, scheme: String, path: String, expire: Duration) async {
        guard isCurrent(bundleID, token), let server = await notifications.server() else { return }
        let copy: String
        switch LaunchImages.read(path) {
        case .success(let bytes):
            do {
                copy = try writeCopy(bytes, name: "\(bundleID)-\(scheme).png")
            } catch {
                logger.warning("cannot copy the launch image of \(bundleID) into \(settings.folder): \(error); it launches without it")
                return
            }
        case .failure(let problem):
            logger.warning("the launch image \(path) \(problem.message); \(bundleID) launches without it")
            return
        }
        guard isCurrent(bundleID, token) else { return }
        let id: UInt32
        do {
            id = try await notifications.notify(
                server, appName: "Courier", summary: name, body: "Opening a \(scheme): link…",
                hints: [
                    FreedesktopNotifications.Hint.imagePath: .string(URL(fileURLWithPath: copy).absoluteString),
                    FreedesktopNotifications.Hint.transient: .boolean(true),
                    FreedesktopNotifications.Hint.urgency: .byte(1),
                ],
                // Gone by itself should the broker end before the launch does.
                expire: expire, timeout: .seconds(5))
        } catch {
            logger.debug("the notification server did not show the launch image of \(bundleID): \(error.message)")
            return
        }
        let stillLaunching = shows.withLock { shows -> Bool in
            guard shows[bundleID]?.token == token else { return false }
            shows[bundleID]?.shown = (server, id)
            return true
        }
        if !stillLaunching { await notifications.close(server, id: id) }
    }

    /// Writes `bytes` as `name` in the settings' folder (replaced whole) and returns its path.
    private func writeCopy(_ bytes: [UInt8], name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: settings.folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = Paths.join(settings.folder, name)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }
}
