/// How the broker tied a process to an app, or why it could not: the answer of
/// `ReceiverVerifier` for a pid the bus vouches for.
public enum ReceiverVerdict: Sendable, Hashable, CustomStringConvertible {
    /// The very process the broker spawned for the app (and it has not exited).
    case launchedChild(pid: Int32)
    /// Another process whose `/proc/PID/exe` is, by device and inode, the file the manifest's
    /// launch command resolves to (started by hand, or before the broker restarted).
    /// `script` set when the manifest launches an interpreter or a script: the process runs that
    /// script too (by its command line).
    case sameExecutable(ProcessIdentity)
    /// A process in the app's own sandbox (a Flatpak of the bundle id, the snap the manifest
    /// runs), whose executable inside cannot be compared with the launch command.
    case sandboxed(ProcessIdentity, SandboxIdentity)
    /// Not the app. `process` is nil when the bus could not tell the pid.
    case impostor(ProcessIdentity?, reason: String)

    /// The process admitted while it runs (not one Courier launched): what the broker holds by
    /// its `/proc/PID` handle.
    public var heldProcess: ProcessIdentity? {
        switch self {
        case .sameExecutable(let process), .sandboxed(let process, _): process
        case .launchedChild, .impostor: nil
        }
    }

    public var isApp: Bool {
        if case .impostor = self { false } else { true }
    }

    public var pid: Int32? {
        switch self {
        case .launchedChild(let pid): pid
        case .sameExecutable(let process), .sandboxed(let process, _): process.pid
        case .impostor(let process, _): process?.pid
        }
    }

    public var description: String {
        switch self {
        case .launchedChild(let pid): "pid \(pid), launched by Courier"
        case .sameExecutable(let process): "\(process), the \(process.script == nil ? "executable" : "interpreter and script") its manifest launches"
        case .sandboxed(let process, let sandbox): "\(process), in \(sandbox), which its manifest launches"
        case .impostor(let process, let reason): "\(process.map(\.description) ?? "a process of unknown pid"), not the app: \(reason)"
        }
    }
}
