/// Decides whether a process may receive an app's URLs and files: the identity of receivers
/// (docs/security.md).
///
/// A process is the app only if the broker can tie it to the app's manifest:
/// 1. it is the child the broker spawned for that app and has not exited (`Launcher.isRunningChild`,
///    safe against pid reuse), or
/// 2. its executable, `/proc/PID/exe`, is by device and inode the file the manifest's launch
///    command resolves to (`Launcher.executablePath`) — not a file of the same name, not a copy.
///
/// Anything else is an impostor. An app whose manifest has no `CourierLaunchArguments` can only
/// be verified by (1), which it never is: Courier cannot tell its executable, so it must be
/// launched by Courier to be trusted. The pid is the one the bus read from the connection's
/// socket (`GetConnectionCredentials`), never one the caller states.
public struct ReceiverVerifier: Sendable {
    let launcher: any Launcher
    let resolver: any HandlerResolver

    public init(launcher: any Launcher, resolver: any HandlerResolver) {
        self.launcher = launcher
        self.resolver = resolver
    }

    /// The verdict on the process `pid` as a receiver for `bundleID`, now.
    public func verdict(bundleID: String, pid: Int32?) -> ReceiverVerdict {
        guard let pid, pid > 0 else {
            return .impostor(nil, reason: "the bus cannot tell which process it is, so Courier cannot check it")
        }
        if launcher.isRunningChild(pid, of: bundleID) { return .launchedChild(pid: pid) }
        let process = ProcessIdentity.of(pid: pid)
        guard let descriptor = resolver.descriptor(bundleID: bundleID) else {
            return .impostor(process, reason: "no manifest is registered for \(bundleID)")
        }
        guard let arguments = descriptor.launchArguments, !arguments.isEmpty else {
            return .impostor(process, reason: "the manifest of \(bundleID) has no CourierLaunchArguments, so only a process Courier launched can be \(bundleID)")
        }
        let expectedPath: String
        do {
            expectedPath = try launcher.executablePath(for: LaunchSpec(bundleID: bundleID, arguments: arguments))
        } catch {
            return .impostor(process, reason: "the launch command of \(bundleID) resolves to no executable (\(error.message))")
        }
        guard let expected = FileIdentity(path: expectedPath) else {
            return .impostor(process, reason: "\(expectedPath), the executable the manifest of \(bundleID) launches, cannot be read")
        }
        guard let running = process.executable else {
            return .impostor(process, reason: "its executable cannot be read (/proc/\(pid)/exe): it exited, or is not this user's")
        }
        guard running == expected else {
            return .impostor(process, reason: "it runs \(process.executablePath), not \(expectedPath), the executable the manifest of \(bundleID) launches")
        }
        return .sameExecutable(process)
    }

    /// Whether a process admitted earlier is still the one it was: the launched child has not
    /// exited, or the process still runs the same file. Checked before every delivery.
    ///
    /// `handle`, the process's `/proc/PID` opened when it was admitted (`ProcessHandle`), is the
    /// check for `.sameExecutable`: it sees only that very process, so a pid reused by another
    /// process running the same executable is refused, and it costs one `fstatat`. Without one
    /// (no descriptor was left at admission) the pid's `/proc/PID/exe` is read by path, as before.
    public func stillHolds(_ verdict: ReceiverVerdict, bundleID: String, handle: ProcessHandle? = nil) -> Bool {
        switch verdict {
        case .launchedChild(let pid):
            return launcher.isRunningChild(pid, of: bundleID)
        case .sameExecutable(let process):
            guard let expected = process.executable else { return false }
            if let handle, handle.pid == process.pid { return handle.executable == expected }
            return FileIdentity(path: "/proc/\(process.pid)/exe") == expected
        case .impostor:
            return false
        }
    }
}
