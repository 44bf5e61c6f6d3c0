/// The edge of the broker core that starts app processes: `ProcessLauncher` spawns real ones.
public protocol Launcher: Sendable {
    /// Starts the app and returns its pid. `onExit` is called exactly once, from any thread, when
    /// the process has exited and been reaped. Throws `LaunchFailed` when it cannot be started
    /// (command not found, not executable, …) with errno's reason.
    func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (_ pid: Int32, _ status: ExitStatus) -> Void) throws(BrokerError) -> Int32

    /// Asks the process to stop (SIGTERM), then kills it (SIGKILL) if it is still there after `grace`.
    func terminate(pid: Int32, grace: Duration)
}

/// Everything needed to start one app.
public struct LaunchSpec: Sendable, Hashable {
    public var bundleID: String
    /// argv, executed directly; `arguments[0]` is a path or a name looked up on `PATH`.
    public var arguments: [String]
    /// Added to (and overriding) the launcher's base environment.
    public var environment: [String: String]

    public init(bundleID: String, arguments: [String], environment: [String: String] = [:]) {
        self.bundleID = bundleID
        self.arguments = arguments
        self.environment = environment
    }
}

/// How a child process ended, decoded from `waitpid`'s status.
public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a raw `waitpid` status (the `WIFEXITED`/`WTERMSIG` macros do not import into Swift).
    public init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    public var description: String {
        switch self {
        case .exited(let code): "exit status \(code)"
        case .signaled(let signal): "signal \(signal)"
        }
    }
}
