import CourierNames

/// The launcher the broker's dispatcher uses: the real one, plus the squatter check.
///
/// Before spawning, an app whose bus name an impostor holds is refused with `NameSquatted` (the
/// app could not own its name anyway, and would fail after a wasted start). When a launched process
/// exits, the holder of its name is looked up again before the dispatcher hears of it, so an app
/// that exited because its name was taken is reported as `NameSquatted`, naming the squatter's
/// pid, rather than as a bare exit status.
///
/// An app relaunched right after its previous instance ended (terminated with notice, crashed) may
/// find that instance still owning its bus name: the bus has not yet noticed the closed
/// connection. The launch then waits, at most `previousInstanceAllowance`, for the bus to say the
/// name was released, instead of starting a process that could not own it.
struct GuardedLauncher: Launcher {
    /// How long a launch waits for the previous instance to leave the bus.
    static let previousInstanceAllowance: Duration = .seconds(2)

    let base: any Launcher
    let receivers: ReceiverGuard

    func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (Int32, ExitStatus) -> Void) throws(CourierError) -> Int32 {
        if let squatted = receivers.squatter(of: spec.bundleID, beforeLaunch: true) { throw squatted }
        let receivers = receivers
        return try base.launch(spec) { pid, status in
            Task {
                await receivers.refresh(spec.bundleID)
                onExit(pid, status)
            }
        }
    }

    func terminate(pid: Int32, grace: Duration) { base.terminate(pid: pid, grace: grace) }
    func kill(pid: Int32) { base.kill(pid: pid) }
    func logTail(bundleID: String, lines count: Int) -> [String] { base.logTail(bundleID: bundleID, lines: count) }

    func isRunningChild(_ pid: Int32, of bundleID: String) -> Bool { base.isRunningChild(pid, of: bundleID) }

    func executablePath(for spec: LaunchSpec) throws(CourierError) -> String { try base.executablePath(for: spec) }

    func mustWaitBeforeLaunch(_ bundleID: String) -> Bool { receivers.heldByAnInstance(of: bundleID) }

    func waitUntilLaunchable(_ bundleID: String) async {
        let deadline = ContinuousClock.now + Self.previousInstanceAllowance
        while receivers.heldByAnInstance(of: bundleID), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    func failureBeforeCheckIn(bundleID: String, pid: Int32, status: ExitStatus) -> CourierError? {
        receivers.squatter(of: bundleID) ?? base.failureBeforeCheckIn(bundleID: bundleID, pid: pid, status: status)
    }
}
