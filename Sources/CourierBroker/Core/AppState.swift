/// Where one app is in its life, as the broker sees it.
public enum AppState: Sendable, Hashable, CustomStringConvertible {
    case notRunning
    /// Spawned by the broker, not checked in yet; `pid` once the spawn has returned.
    case launching(pid: Int32?)
    /// Checked in from this unique bus name; `pid` when the broker launched it.
    case running(uniqueName: String, pid: Int32?)

    public var description: String {
        switch self {
        case .notRunning: "not running"
        case .launching(let pid): "launching\(pid.map { " (pid \($0))" } ?? "")"
        case .running(let name, let pid): "running (\(name)\(pid.map { ", pid \($0)" } ?? ""))"
        }
    }
}

/// A row of the broker's status: one known app.
public struct AppStatus: Sendable {
    public var bundleID: String
    public var state: AppState
    public var queued: Int
    public var consecutiveFailures: Int
}
