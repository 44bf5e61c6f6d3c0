import CourierNames
import DequeModule

/// What the broker knows about one app, and the transitions that change it.
///
/// A record only changes through its own `mutating` methods, called on the record in place
/// (`DispatcherState.withRecord`): no copy is taken out and put back (a copy shares the queue's
/// storage, and changing the queue would then copy it whole), and no field is reached through a
/// force-unwrapped dictionary lookup. Every method appends what is left to do to `effects`, and
/// each public state it passes through is reported (`DispatcherEvent.stateChanged`).
struct AppRecord: Sendable {
    enum Phase: Sendable {
        case notRunning
        /// Spawned (or being spawned) by the broker for `options`' request; `pid` once the spawn
        /// returned. The pid is what receiver verification compares a `CheckIn` with.
        case launching(pid: Int32?, options: LaunchOptions)
        /// Checked in from `uniqueName`; `pid` when the broker launched this process.
        case running(uniqueName: String, pid: Int32?)
        /// Told (or about to be told) to terminate; nothing more is delivered to it.
        case terminating(uniqueName: String, pid: Int32?, step: TerminationStep)
    }

    /// Where a termination with notice is: the notice waits for the request in flight, then the app
    /// has until the deadline to answer it, then it is signalled (SIGTERM, SIGKILL after the grace).
    enum TerminationStep: Sendable, Equatable {
        case afterInFlight(deadline: Duration)
        case noticeSent
        case signalled
    }

    var descriptor: AppDescriptor
    private(set) var phase: Phase = .notRunning
    var queue: Deque<PendingRequest> = []
    /// The request being delivered; its answer starts the next delivery.
    private(set) var inFlight: PendingRequest?
    /// Bumped at every launch and at a check-in the broker did not launch for, so late events of an
    /// earlier process (its exit, its timers, a delivery's answer) are recognised and ignored.
    private(set) var generation: UInt64 = 0
    private var launchRequestID: UInt64?
    private(set) var failures = 0
    private var blockedUntil: ContinuousClock.Instant?
    /// The state last reported to observers.
    private var reported: AppState = .notRunning
    /// A report of the return to idle is waiting for its timer (`DispatcherTimer.idleReport`).
    private var idleReportPending = false

    /// How long a running app must have stayed idle before its return to idle is reported.
    static let idleReportDelay: Duration = .milliseconds(50)

    // For `courier ps` and the termination policies, about the current process.
    private(set) var startedBy = ""
    private(set) var startedAt: ContinuousClock.Instant?
    /// When it last finished a request or checked in: idle time and least-recently-used order.
    private(set) var lastActive: ContinuousClock.Instant?
    private(set) var handled = 0

    init(descriptor: AppDescriptor) {
        self.descriptor = descriptor
    }

    var bundleID: String { descriptor.bundleID }

    /// The pid of the process the broker launched for the current generation, if known.
    var launchedPID: Int32? {
        switch phase {
        case .notRunning: nil
        case .launching(let pid, _), .running(_, let pid), .terminating(_, let pid, _): pid
        }
    }

    var uniqueName: String? {
        switch phase {
        case .running(let name, _), .terminating(let name, _, _): name
        case .notRunning, .launching: nil
        }
    }

    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    var publicState: AppState {
        switch phase {
        case .notRunning: .notRunning
        case .launching(let pid, _): .launching(pid: pid)
        case .running(let name, let pid): inFlight == nil && queue.isEmpty ? .idle(uniqueName: name, pid: pid) : .active(uniqueName: name, pid: pid)
        case .terminating(let name, let pid, _): .terminating(uniqueName: name, pid: pid)
        }
    }

    func status(now: ContinuousClock.Instant) -> AppStatus {
        let state = publicState
        let alive = state != .notRunning
        return AppStatus(
            bundleID: bundleID, state: state, queued: queue.count, inFlight: inFlight != nil, handled: handled,
            startedBy: alive ? startedBy : "", uptime: alive ? startedAt.map { now - $0 } : nil,
            idleFor: state.isRunning && inFlight == nil ? lastActive.map { now - $0 } : nil, consecutiveFailures: failures
        )
    }

    /// Reports the public state when it changed since the last report (a new name: a pid learnt
    /// later is not a change of state). Every transition ends with it (`DispatcherState`); those
    /// that pass through a state on their way (terminating → not running → launching) call it in
    /// between too.
    ///
    /// Except the return from active to idle: a warm app goes active → idle → active with every
    /// request, and reporting each flip cost two `ApplicationStateChanged` broadcasts per request —
    /// two more messages through the bus daemon, and more of the broker's time than the routing
    /// itself, on the path of every warm `OpenURL`. So that return is reported once the app has
    /// stayed idle for `idleReportDelay` (a timer, armed at most once at a time): a stream of
    /// requests is one active … idle pair. Every other change is reported at once.
    mutating func reportState(_ effects: inout [DispatcherEffect]) {
        let state = publicState
        guard state.name != reported.name else { return }
        if case .idle = state, case .active = reported {
            if !idleReportPending {
                idleReportPending = true
                effects.append(.startTimer(.idleReport, bundleID: bundleID, generation: generation, after: Self.idleReportDelay))
            }
            return
        }
        reported = state
        effects.append(.event(.stateChanged(bundleID: bundleID, state: state)))
    }

    /// The idle report's timer fired: the app is reported idle if it still is (a request that came
    /// meanwhile keeps it active, and its own return to idle arms the timer again). Whatever the
    /// generation: the report says what the app is now.
    mutating func idleReportDue(_ effects: inout [DispatcherEffect]) {
        idleReportPending = false
        let state = publicState
        guard case .idle = state, state.name != reported.name else { return }
        reported = state
        effects.append(.event(.stateChanged(bundleID: bundleID, state: state)))
    }

    // MARK: Launch and check-in

    /// Starts the app for its queued requests, unless it is already starting or running, or the
    /// crash-loop back-off or a missing launch command forbids it (then the queue is answered).
    mutating func launch(now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        guard case .notRunning = phase, let first = queue.first else { return }
        if let until = blockedUntil, now < until {
            failQueue(CourierError(.launchFailed, "\(bundleID) failed \(failures) times in a row; Courier will not relaunch it for another \((until - now).formatted) (crash-loop back-off); fix the app or retry later"), &effects)
            return
        }
        guard let arguments = descriptor.launchArguments else {
            failQueue(CourierError(.launchFailed, "\(bundleID) is not running and its manifest has no CourierLaunchArguments; start the app by other means (it checks in) or add the key"), &effects)
            return
        }
        generation += 1
        var environment: [String: String] = [:]
        if let token = first.request.activationToken {
            environment["XDG_ACTIVATION_TOKEN"] = token
            environment["DESKTOP_STARTUP_ID"] = token
        }
        let options = LaunchOptions(url: first.request.url, requestID: first.id, options: first.request.options, facts: first.request.facts)
        phase = .launching(pid: nil, options: options)
        started(by: first.request.sourceApplication.isEmpty ? (first.request.caller.isEmpty ? "-" : first.request.caller) : first.request.sourceApplication, now: now)
        reportState(&effects)
        effects.append(.event(.launching(bundleID: bundleID)))
        effects.append(.spawn(LaunchSpec(bundleID: bundleID, arguments: arguments, environment: environment), generation: generation))
    }

    /// The spawn of `generation` returned `pid`.
    mutating func spawned(pid: Int32, generation: UInt64, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation else { return }
        switch phase {
        case .launching(_, let options):
            phase = .launching(pid: pid, options: options)
            effects.append(.startTimer(.launch, bundleID: bundleID, generation: generation, after: descriptor.launchTimeout))
            effects.append(.log(.debug, "launched \(bundleID) pid=\(pid) argv=\(descriptor.launchArguments ?? [])"))
        case .running(let name, nil):
            // It checked in before the spawn returned (possible: the spawn is outside the lock).
            phase = .running(uniqueName: name, pid: pid)
        case .running, .terminating, .notRunning:
            break
        }
    }

    /// The spawn of `generation` failed.
    mutating func spawnFailed(_ error: CourierError, generation: UInt64, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .launching = phase else { return }
        phase = .notRunning
        // A squatted name is not the app's failure: no crash-loop back-off hides the squatter.
        if error.code != .nameSquatted { recordFailure(now: now, crashLoop: crashLoop, &effects) }
        failQueue(error, &effects)
    }

    /// The app says it is ready from `uniqueName`. Returns the launch options, or why not.
    mutating func checkIn(uniqueName: String, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) -> Result<LaunchOptions, CourierError> {
        if self.uniqueName == uniqueName {
            return .failure(CourierError(.notPermitted, "\(bundleID) already checked in from \(uniqueName); call CheckIn once per process"))
        }
        effects.append(.event(.checkedIn(bundleID: bundleID)))
        let options: LaunchOptions
        switch phase {
        case .launching(let pid, let launchOptions):
            effects.append(.stopTimer(.launch, bundleID: bundleID, generation: generation))
            phase = .running(uniqueName: uniqueName, pid: pid)
            launchRequestID = launchOptions.requestID
            options = launchOptions
        case .notRunning:
            generation += 1
            phase = .running(uniqueName: uniqueName, pid: nil)
            started(by: "self", now: now)
            options = .none
        case .running, .terminating:
            gone(reason: "was replaced by \(uniqueName)", relaunch: false, now: now, crashLoop: crashLoop, &effects)
            generation += 1
            phase = .running(uniqueName: uniqueName, pid: nil)
            started(by: "self", now: now)
            options = .none
        }
        lastActive = now
        effects.append(.log(.debug, "\(bundleID) checked in name=\(uniqueName) launch-url=\(options.url ?? "")"))
        startDelivery(&effects)
        return .success(options)
    }

    /// A foreign `org.freedesktop.Application` never checks in: it is reachable at its well-known
    /// name, which the bus activates on the first call (single flight there).
    mutating func assumeActivatable(now: ContinuousClock.Instant) {
        guard descriptor.dbusActivatable, case .notRunning = phase else { return }
        generation += 1
        phase = .running(uniqueName: bundleID, pid: nil)
        started(by: "bus activation", now: now)
    }

    private mutating func started(by who: String, now: ContinuousClock.Instant) {
        startedBy = who
        startedAt = now
        lastActive = now
        handled = 0
    }

    // MARK: Requests

    /// Queues one request and starts its launch or delivery; while the app is terminating it waits
    /// for the relaunch that follows the exit.
    mutating func enqueue(_ pending: PendingRequest, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        queue.append(pending)
        switch phase {
        case .running: startDelivery(&effects)
        case .launching: effects.append(.log(.debug, "queued behind the launch of \(bundleID) request=\(pending.id)"))
        case .terminating: effects.append(.log(.debug, "\(bundleID) is terminating; request=\(pending.id) waits for its relaunch"))
        case .notRunning: launch(now: now, &effects)
        }
    }

    /// Hands the app its next queued request, unless one is in flight or it is not running.
    mutating func startDelivery(_ effects: inout [DispatcherEffect]) {
        guard case .running(let uniqueName, _) = phase, inFlight == nil, let pending = queue.popFirst() else { return }
        inFlight = pending
        let delivery = Delivery(
            requestID: pending.id, url: pending.request.url, options: pending.request.options,
            facts: pending.request.facts, isLaunchRequest: launchRequestID == pending.id,
            timeout: pending.request.deliveryTimeout
        )
        effects.append(.deliver(pending, delivery, endpoint(uniqueName), generation: generation))
    }

    /// The app answered request `id` of `generation` (or failed to): complete it, deliver the next,
    /// or — when a termination waited for it — send the notice.
    mutating func delivered(_ id: UInt64, generation: UInt64, _ result: Result<DeliveryAnswer, CourierError>, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        // Already answered when the app died meanwhile.
        guard let pending = inFlight, pending.id == id else { return }
        inFlight = nil
        lastActive = now
        switch result {
        case .success(let answer):
            failures = 0
            blockedUntil = nil
            handled += 1
            effects.append(.finish(pending, target: bundleID, .success(OpenOutcome(handled: answer.handled, bundleID: bundleID, reply: answer.reply, launched: pending.launched))))
        case .failure(let error):
            effects.append(.finish(pending, target: bundleID, .failure(error)))
            if error.code == .appFailed { recordFailure(now: now, crashLoop: crashLoop, &effects) }
        }
        guard generation == self.generation else { return }
        if case .terminating(let name, let pid, .afterInFlight(let deadline)) = phase {
            phase = .terminating(uniqueName: name, pid: pid, step: .noticeSent)
            sendNotice(name, deadline: deadline, &effects)
        } else {
            startDelivery(&effects)
        }
    }

    // MARK: Termination

    /// Terminates the app with notice: no more deliveries; `WillTerminate` once the request in
    /// flight (if any) is answered; SIGTERM when the app has answered the notice or `deadline` has
    /// passed; SIGKILL after the grace. Requests queued meanwhile wait for the relaunch.
    mutating func terminate(reason: String, deadline: Duration, _ effects: inout [DispatcherEffect]) -> Result<Void, CourierError> {
        switch phase {
        case .notRunning:
            return .failure(CourierError(.notRunning, "\(bundleID) is not running; nothing to quit"))
        case .launching:
            return .failure(CourierError(.notRunning, "\(bundleID) is still launching; quit it once it has checked in"))
        case .terminating:
            return .success(())
        case .running(let name, let pid):
            guard !descriptor.dbusActivatable else {
                return .failure(CourierError(.notPermitted, "\(bundleID) is a desktop app the bus started (CourierDBusActivatable); Courier does not manage its life: close it in the app"))
            }
            effects.append(.log(.info, "terminating \(bundleID): \(reason)"))
            if inFlight == nil {
                phase = .terminating(uniqueName: name, pid: pid, step: .noticeSent)
                sendNotice(name, deadline: deadline, &effects)
            } else {
                phase = .terminating(uniqueName: name, pid: pid, step: .afterInFlight(deadline: deadline))
            }
            return .success(())
        }
    }

    private mutating func sendNotice(_ uniqueName: String, deadline: Duration, _ effects: inout [DispatcherEffect]) {
        effects.append(.notifyTermination(endpoint(uniqueName), generation: generation, deadline: deadline))
        effects.append(.startTimer(.terminationDeadline, bundleID: bundleID, generation: generation, after: deadline))
    }

    /// The app answered `WillTerminate` (or the call failed), or its deadline passed: signal it.
    mutating func noticeEnded(generation: UInt64, answered: Bool, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .terminating(let name, let pid, .noticeSent) = phase else { return }
        phase = .terminating(uniqueName: name, pid: pid, step: .signalled)
        effects.append(.stopTimer(.terminationDeadline, bundleID: bundleID, generation: generation))
        if let pid {
            effects.append(.log(.debug, "\(bundleID) \(answered ? "answered WillTerminate" : "did not answer WillTerminate by its deadline"); SIGTERM to pid \(pid)"))
            effects.append(.terminate(pid: pid))
        } else {
            effects.append(.log(.warning, "\(bundleID) was not launched by Courier, so it cannot be signalled; it is terminating once it leaves the bus"))
        }
    }

    // MARK: Exit

    /// The process of `generation` exited with `status`; `reason`, when the launcher knows why
    /// (its bus name is squatted), is the answer to the queue instead of the bare exit status.
    mutating func processExited(pid: Int32, generation: UInt64, status: ExitStatus, reason: CourierError? = nil, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation else { return }
        switch phase {
        case .launching:
            effects.append(.stopTimer(.launch, bundleID: bundleID, generation: generation))
            phase = .notRunning
            effects.append(.discardSavedState(bundleID: bundleID))
            let error = reason ?? CourierError(.launchFailed, "\(bundleID) (pid \(pid)) \(status.ending) before checking in; `courier log \(bundleID)` shows what it printed")
            if error.code != .nameSquatted { recordFailure(now: now, crashLoop: crashLoop, &effects) }
            failQueue(error, &effects)
        case .running, .terminating:
            gone(reason: status.ending, now: now, crashLoop: crashLoop, &effects)
        case .notRunning:
            effects.append(.log(.debug, "\(bundleID) pid \(pid) \(status.ending)"))
        }
    }

    /// The launch of `generation` did not check in in time: terminate it and answer the queue.
    mutating func launchTimedOut(generation: UInt64, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .launching(let pid?, _) = phase else { return }
        phase = .notRunning
        effects.append(.terminate(pid: pid))
        effects.append(.discardSavedState(bundleID: bundleID))
        recordFailure(now: now, crashLoop: crashLoop, &effects)
        failQueue(CourierError(.launchTimeout, "\(bundleID) (pid \(pid)) did not check in within \(descriptor.launchTimeout.formatted) and was terminated; an app must call CheckIn when it is ready (the Courier library does)"), &effects)
    }

    /// The app stopped (exit, left the bus, replaced): answer the request it was handling with an
    /// error and relaunch it for the requests still queued. An end the broker did not ask for is a
    /// crash, not a termination: the state the app saved before is discarded (as the guide does
    /// when an app fails), so the relaunch does not restore it.
    mutating func gone(reason: String, relaunch: Bool = true, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        switch phase {
        case .launching: effects.append(.stopTimer(.launch, bundleID: bundleID, generation: generation))
        case .terminating: effects.append(.stopTimer(.terminationDeadline, bundleID: bundleID, generation: generation))
        case .running where relaunch: effects.append(.discardSavedState(bundleID: bundleID))
        case .running, .notRunning: break
        }
        phase = .notRunning
        effects.append(.log(.debug, "\(bundleID) \(reason)"))
        if let pending = inFlight {
            inFlight = nil
            recordFailure(now: now, crashLoop: crashLoop, &effects)
            effects.append(.finish(pending, target: bundleID, .failure(CourierError(.appFailed, "\(bundleID) \(reason) while handling \(pending.request.url); the next request relaunches it"))))
        }
        reportState(&effects)
        if relaunch { launch(now: now, &effects) }
    }

    // MARK: Helpers

    private func endpoint(_ uniqueName: String) -> AppEndpoint {
        AppEndpoint(bundleID: bundleID, uniqueName: uniqueName, freedesktopApplication: descriptor.dbusActivatable)
    }

    private mutating func recordFailure(now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        failures += 1
        if let delay = crashLoop.backoff(afterFailures: failures) {
            blockedUntil = now + delay
            effects.append(.log(.warning, "\(bundleID) failed \(failures) times in a row; no relaunch for \(delay.formatted)"))
        }
    }

    private mutating func failQueue(_ error: CourierError, _ effects: inout [DispatcherEffect]) {
        while let pending = queue.popFirst() {
            effects.append(.finish(pending, target: bundleID, .failure(error)))
        }
    }
}
