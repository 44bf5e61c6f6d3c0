public import CourierProcess

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

/// How a launched app ended: the one `waitpid` decoding every Courier module shares.
public typealias ExitStatus = ChildProcess.Termination
