/// Where one app is in its life, as the broker sees it (the guide's execution states, section 2.4,
/// for a broker that launches apps on demand and terminates them with notice).
public enum AppState: Sendable, Hashable, CustomStringConvertible {
    /// No process (never started, exited, terminated, crashed).
    case notRunning
    /// Spawned by the broker, not checked in yet; `pid` once the spawn has returned.
    case launching(pid: Int32?)
    /// Checked in from `uniqueName` and handling a request, or with requests waiting.
    case active(uniqueName: String, pid: Int32?)
    /// Checked in from `uniqueName`, nothing in flight and nothing queued.
    case idle(uniqueName: String, pid: Int32?)
    /// Told to terminate (`WillTerminate`); requests that arrive now wait for its relaunch.
    case terminating(uniqueName: String, pid: Int32?)

    /// The state's name on the bus and in `courier ps`: not-running, launching, active, idle, terminating.
    public var name: String {
        switch self {
        case .notRunning: "not-running"
        case .launching: "launching"
        case .active: "active"
        case .idle: "idle"
        case .terminating: "terminating"
        }
    }

    /// The app's process id when the broker knows it (it launched the process).
    public var pid: Int32? {
        switch self {
        case .notRunning: nil
        case .launching(let pid), .active(_, let pid), .idle(_, let pid), .terminating(_, let pid): pid
        }
    }

    /// The unique bus name the app checked in from.
    public var uniqueName: String? {
        switch self {
        case .notRunning, .launching: nil
        case .active(let name, _), .idle(let name, _), .terminating(let name, _): name
        }
    }

    /// Checked in and not terminating: it receives deliveries.
    public var isRunning: Bool {
        switch self {
        case .active, .idle: true
        case .notRunning, .launching, .terminating: false
        }
    }

    public var description: String {
        var details: [String] = []
        if let uniqueName { details.append(uniqueName) }
        if let pid { details.append("pid \(pid)") }
        return details.isEmpty ? name : "\(name) (\(details.joined(separator: ", ")))"
    }
}

/// A row of the broker's status: one known app (`courier ps`).
public struct AppStatus: Sendable {
    public var bundleID: String
    public var state: AppState
    /// Requests waiting, not counting the one in flight.
    public var queued: Int
    /// Whether a request is being handled now.
    public var inFlight: Bool
    /// Requests the current process answered (reset at each launch or check-in).
    public var handled: Int
    /// Who started the current process: the app or caller whose request launched it, "courier"
    /// for a launch on the command line, or "self" when it checked in without being launched.
    public var startedBy: String
    /// Since the process checked in or was launched; nil when not running.
    public var uptime: Duration?
    /// Since the app last finished a request (or checked in); nil when not running.
    public var idleFor: Duration?
    public var consecutiveFailures: Int
    /// The process let the broker's delivery deadline pass without answering (hung); cleared by
    /// its next answer.
    public var notResponding: Bool = false
    /// A keep-alive app that kept failing and is no longer relaunched by itself.
    public var keepAliveFailed: Bool = false
    /// How its last instances ended, oldest first.
    public var ends: [AppEnd] = []
}
