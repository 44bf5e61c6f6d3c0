/// How the broker tied a process to an app, or why it could not: the answer of
/// `ReceiverVerifier` for a pid the bus vouches for.
public enum ReceiverVerdict: Sendable, Hashable, CustomStringConvertible {
    /// The very process the broker spawned for the app (and it has not exited).
    case launchedChild(pid: Int32)
    /// Another process whose `/proc/PID/exe` is, by device and inode, the file the manifest's
    /// launch command resolves to (started by hand, or before the broker restarted).
    case sameExecutable(ProcessIdentity)
    /// Not the app. `process` is nil when the bus could not tell the pid.
    case impostor(ProcessIdentity?, reason: String)

    public var isApp: Bool {
        if case .impostor = self { false } else { true }
    }

    public var pid: Int32? {
        switch self {
        case .launchedChild(let pid): pid
        case .sameExecutable(let process): process.pid
        case .impostor(let process, _): process?.pid
        }
    }

    public var description: String {
        switch self {
        case .launchedChild(let pid): "pid \(pid), launched by Courier"
        case .sameExecutable(let process): "\(process), the executable its manifest launches"
        case .impostor(let process, let reason): "\(process.map(\.description) ?? "a process of unknown pid"), not the app: \(reason)"
        }
    }
}
