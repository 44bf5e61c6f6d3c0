public import CourierNames
public import CourierProcess

/// The edge of the broker core that starts app processes: `ProcessLauncher` spawns real ones.
public protocol Launcher: Sendable {
    /// Starts the app and returns its pid. `onExit` is called exactly once, from any thread, when
    /// the process has exited and been reaped. Throws `LaunchFailed` when it cannot be started
    /// (command not found, not executable, …) with errno's reason.
    func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (_ pid: Int32, _ status: ExitStatus) -> Void) throws(CourierError) -> Int32

    /// Asks the process to stop (SIGTERM), then kills it (SIGKILL) if it is still there after `grace`.
    func terminate(pid: Int32, grace: Duration)

    /// Kills the process now (SIGKILL), if it is a child that has not exited.
    func kill(pid: Int32)

    /// The last `count` lines the app's launched processes printed (its log), oldest first; none
    /// when the launcher keeps no log. Read when an instance ends, for its `AppEnd`.
    func logTail(bundleID: String, lines count: Int) -> [String]

    /// Whether `pid` is a process this launcher started for `bundleID` and that has not exited.
    /// Must be safe against pid reuse (a pid that may already name another process is never
    /// answered `true`): the receiver check at `CheckIn` trusts it. The default answers `false`,
    /// so a launcher that cannot tell leaves apps to the executable check.
    func isRunningChild(_ pid: Int32, of bundleID: String) -> Bool

    /// The file `spec.arguments[0]` resolves to when this launcher starts it (a path as it is, a
    /// bare name looked up on the `PATH` the app would get). Throws `LaunchFailed` when it
    /// resolves to nothing. The default takes a path containing `/` as it is.
    func executablePath(for spec: LaunchSpec) throws(CourierError) -> String

    /// Why a process started for `bundleID` exited before checking in, when the launcher knows
    /// better than its exit status (another process holds the app's bus name); nil otherwise.
    func failureBeforeCheckIn(bundleID: String, pid: Int32, status: ExitStatus) -> CourierError?

    /// Whether a launch of `bundleID` must wait (`waitUntilLaunchable`): the app's previous
    /// instance has ended but may still own the app's bus name, which the new process could then
    /// not own. The default answers `false`.
    func mustWaitBeforeLaunch(_ bundleID: String) -> Bool

    /// Returns once a launch of `bundleID` may go ahead, or after a bounded wait.
    func waitUntilLaunchable(_ bundleID: String) async
}

extension Launcher {
    public func isRunningChild(_ pid: Int32, of bundleID: String) -> Bool { false }

    public func executablePath(for spec: LaunchSpec) throws(CourierError) -> String {
        guard let name = spec.arguments.first, name.hasPrefix("/") else {
            throw CourierError(.launchFailed, "the launch command of \(spec.bundleID) does not start with an absolute path")
        }
        return name
    }

    public func failureBeforeCheckIn(bundleID: String, pid: Int32, status: ExitStatus) -> CourierError? { nil }

    public func mustWaitBeforeLaunch(_ bundleID: String) -> Bool { false }

    public func logTail(bundleID: String, lines count: Int) -> [String] { [] }

    public func waitUntilLaunchable(_ bundleID: String) async {}
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
