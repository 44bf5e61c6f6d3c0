/// How one instance of an app ended (`courier status ID`, `ListProcesses`' `ends`), as
/// `systemctl status` shows a unit's last exit: the broker keeps the last `AppRecord.keptEnds`.
public struct AppEnd: Sendable, Equatable {
    /// The process, when the broker launched or held it.
    public var pid: Int32?
    /// Its exit status or signal, once the broker reaped it (it launched it); nil for a process the
    /// broker did not launch, or while its exit has not been reaped yet.
    public var status: ExitStatus?
    /// When it ended, on the broker's monotonic clock.
    public var endedAt: ContinuousClock.Instant
    /// How long before `now` it ended: filled in when the record is read (`AppRecord.status`).
    public var ago: Duration = .zero
    /// From its launch (or check-in) to its end; nil when unknown.
    public var lifetime: Duration?
    /// What the broker saw: "exited with status 3", "left the bus", "did not check in within 10s".
    public var reason: String
    /// Who or what asked for the end ("quit by :1.7", "idle for 5m", "restart by :1.7"); nil when
    /// nobody did: a crash, or the app's own exit.
    public var requestedBy: String?
    /// Killed with SIGKILL without notice (`courier quit --force`).
    public var forced: Bool
    /// The request it was handling when it ended (its caller was answered `AppFailed`).
    public var unanswered: String?
    /// Requests waiting for it then (they went to the next instance).
    public var queued: Int
    /// The last lines of its log when it ended (`DispatcherEffect.readLogTail`): what it printed
    /// last, for a process the broker launched.
    public var log: [String] = []

    /// How many lines of its log an end keeps.
    public static let logLines = 5
}

/// A launch asked for without a URL: `courier launch`, `courier restart`, keep-alive, run-at-load.
public struct LaunchOrder: Sendable, Hashable {
    /// Who asked (a unique bus name, "keep-alive", "run at load"): `courier ps`'s STARTED-BY.
    public var by: String
    /// Appended to the manifest's `CourierLaunchArguments` (`courier launch --args`).
    public var arguments: [String]
    /// Launch without handing back the state the app preserved (`--fresh`).
    public var fresh: Bool

    /// The starter of the launches keep-alive makes.
    public static let keepAliveStarter = "keep-alive"
    /// The starter of the launches run-at-load makes.
    public static let runAtLoadStarter = "run at load"

    public init(by: String, arguments: [String] = [], fresh: Bool = false) {
        self.by = by
        self.arguments = arguments
        self.fresh = fresh
    }
}

/// The answer to a `LaunchOrder`: the app runs (it checked in), or it already ran.
public struct LaunchAnswer: Sendable, Hashable {
    public var alreadyRunning: Bool
    public var state: AppState
}
