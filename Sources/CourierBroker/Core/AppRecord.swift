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
        /// Checked in from `uniqueName`; `pid` when the broker launched this process or holds it
        /// (`heldProcess`).
        case running(uniqueName: String, pid: Int32?)
        /// Told (or about to be told) to terminate; nothing more is delivered to it.
        case terminating(uniqueName: String, pid: Int32?, step: TerminationStep)

        /// A process exists (or is being spawned).
        var isAlive: Bool {
            if case .notRunning = self { return false }
            return true
        }
    }

    /// Where a termination with notice is: the notice waits for the request in flight (at most the
    /// deadline), then the app has until the deadline to answer it, then it is signalled (SIGTERM,
    /// SIGKILL after the grace). A process still on the bus a second after that is `abandoned`:
    /// requests for the app are answered `NotResponding` instead of waiting for it.
    typealias LaunchWaiter = @Sendable (Result<LaunchAnswer, CourierError>) -> Void

    enum TerminationStep: Sendable, Equatable {
        case afterInFlight(deadline: Duration)
        case noticeSent
        case signalled
        case abandoned
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
    /// A process the broker did not launch but verified at `CheckIn` (adopted after a restart, or
    /// started by hand): signalled through this handle, never by number.
    private(set) var heldProcess: ProcessHandle?
    /// The current process let the broker's delivery deadline pass without answering (a hung
    /// app); cleared by its next answer.
    private(set) var notResponding = false
    /// When the request-deadline timer is due (`DispatcherTimer.requestDeadline`), if armed.
    private var requestTimerDue: ContinuousClock.Instant?
    /// The in-flight request whose caller was already told `Unanswered` (its deadline passed).
    private var inFlightAnswered = false

    /// Callers of `courier launch` / `restart` waiting for the app to check in.
    private var launchWaiters: [LaunchWaiter] = []
    /// A launch asked for without a URL, not started yet (it waits for the current instance to
    /// end, or for the back-off of a keep-alive app).
    private var order: LaunchOrder?
    /// Why the broker ends the current instance (quit, a policy, restart), for its `AppEnd`; nil
    /// while nobody asked it to end.
    private var endRequest: String?
    /// The current instance was killed without notice (`courier quit --force`).
    private var forced = false
    /// The last ends of the app's instances, oldest first.
    private(set) var ends: Deque<AppEnd> = []
    /// The request of the current process whose delivery failed with `AppFailed` (its connection
    /// closed as it died: that answer may come before its end is seen), for its `AppEnd`.
    private var failedDelivery: String?
    /// A keep-alive app that kept failing: the broker stopped relaunching it by itself.
    private(set) var keepAliveFailed = false

    /// How many ends a record keeps.
    static let keptEnds = 5

    init(descriptor: AppDescriptor) {
        self.descriptor = descriptor
    }

    var bundleID: String { descriptor.bundleID }

    /// The pid of the current process, when the broker launched it or holds it (`heldProcess`).
    var pid: Int32? {
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

    /// Whether the idle and memory-pressure policies leave it alone: its manifest opts out, or
    /// asks for it to be kept running or started at load.
    var exemptFromReclaim: Bool { !descriptor.terminatesWhenIdle || descriptor.keepAlive || descriptor.runAtLoad }

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
            idleFor: state.isRunning && inFlight == nil ? lastActive.map { now - $0 } : nil, consecutiveFailures: failures,
            notResponding: alive && notResponding, keepAliveFailed: keepAliveFailed,
            ends: ends.map { end in
                var end = end
                end.ago = now - end.endedAt
                return end
            }
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
        guard case .notRunning = phase else { return }
        let first = queue.first
        guard first != nil || order != nil else { return }
        if let until = blockedUntil, now < until {
            if first == nil, launchWaiters.isEmpty, descriptor.keepAlive {
                // Keep-alive's own relaunch waits out the back-off instead of being refused.
                effects.append(.log(.info, "\(bundleID) (keep-alive) failed \(failures) times in a row; relaunching it in \((until - now).formatted)"))
                effects.append(.startTimer(.keepAlive, bundleID: bundleID, generation: generation, after: until - now))
                return
            }
            failQueue(CourierError(.launchFailed, "\(bundleID) failed \(failures) times in a row; Courier will not relaunch it for another \((until - now).formatted) (crash-loop back-off); fix the app or retry later"), &effects)
            return
        }
        guard var arguments = descriptor.launchArguments else {
            failQueue(CourierError(.launchFailed, "\(bundleID) is not running and its manifest has no CourierLaunchArguments; start the app by other means (it checks in) or add the key"), &effects)
            return
        }
        generation += 1
        var environment: [String: String] = [:]
        if let token = first?.request.activationToken {
            environment["XDG_ACTIVATION_TOKEN"] = token
            environment["DESKTOP_STARTUP_ID"] = token
        }
        var options: LaunchOptions
        let starter: String
        if let first {
            options = Self.launchOptions(for: first)
            arguments += first.request.options.arguments ?? []
            options.fresh = first.request.options.fresh
            starter = first.request.sourceApplication.isEmpty ? (first.request.caller.isEmpty ? "-" : first.request.caller) : first.request.sourceApplication
        } else {
            options = LaunchOptions()
            starter = order?.by ?? "-"
        }
        if let order {
            // An order that asked for arguments or a fresh start gets them even when a URL came first.
            if first?.request.options.arguments == nil { arguments += order.arguments }
            options.fresh = options.fresh || order.fresh
            self.order = nil
        }
        options.launched = true
        phase = .launching(pid: nil, options: options)
        started(by: starter, now: now)
        reportState(&effects)
        effects.append(.event(.launching(bundleID: bundleID, url: first?.request.url)))
        effects.append(.spawn(LaunchSpec(bundleID: bundleID, arguments: arguments, environment: environment), generation: generation))
    }

    /// Starts the app without a URL (`courier launch`, keep-alive, run-at-load): `waiter`, when
    /// given, is answered once it has checked in — at once when it already runs — or with why it
    /// could not start. While it is terminating, it is started again once it has ended.
    mutating func start(_ order: LaunchOrder, waiter: LaunchWaiter?, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        if case .running = phase {
            if let waiter { effects.append(.launchAnswered([waiter], .success(LaunchAnswer(alreadyRunning: true, state: publicState)))) }
            return
        }
        if case .terminating(_, _, .abandoned) = phase {
            if let waiter { effects.append(.launchAnswered([waiter], .failure(stuckError))) }
            return
        }
        if !order.by.hasPrefix(LaunchOrder.keepAliveStarter) {
            // A launch on purpose gives a failed keep-alive app its chances back.
            keepAliveFailed = false
        }
        if let waiter { launchWaiters.append(waiter) }
        if case .launching = phase { return }
        self.order = order
        launch(now: now, &effects)
    }

    /// Ends the running instance with notice, then starts a new one (`courier restart`); requests
    /// that arrive meanwhile wait for the new instance. Not running: started.
    mutating func restart(_ order: LaunchOrder, waiter: LaunchWaiter?, deadline: Duration, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        guard case .running = phase else { return start(order, waiter: waiter, now: now, &effects) }
        switch terminate(reason: "restart by \(order.by)", deadline: deadline, &effects) {
        case .failure(let error):
            if let waiter { effects.append(.launchAnswered([waiter], .failure(error))) }
        case .success:
            if let waiter { launchWaiters.append(waiter) }
            self.order = order
        }
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
    /// `process`: the verified process behind a check-in the broker did not launch for.
    mutating func checkIn(uniqueName: String, process: ProcessHandle? = nil, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) -> Result<LaunchOptions, CourierError> {
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
            phase = .running(uniqueName: uniqueName, pid: process?.pid)
            started(by: "self", now: now)
            heldProcess = process
            options = .none
        case .running, .terminating:
            gone(reason: "was replaced by \(uniqueName)", relaunch: false, now: now, crashLoop: crashLoop, &effects)
            order = nil
            generation += 1
            phase = .running(uniqueName: uniqueName, pid: process?.pid)
            started(by: "self", now: now)
            heldProcess = process
            options = .none
        }
        lastActive = now
        effects.append(.log(.debug, "\(bundleID) checked in name=\(uniqueName) launch-url=\(options.url ?? "")"))
        if !launchWaiters.isEmpty {
            effects.append(.launchAnswered(launchWaiters, .success(LaunchAnswer(alreadyRunning: false, state: publicState))))
            launchWaiters = []
        }
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
        heldProcess = nil
        notResponding = false
        failedDelivery = nil
    }

    // MARK: Requests

    /// Queues one request and starts its launch or delivery; while the app is terminating it waits
    /// for the relaunch that follows the exit (unless the terminating process is stuck: then it is
    /// answered at once). A request with a deadline arms the request-deadline timer.
    mutating func enqueue(_ pending: PendingRequest, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        if case .terminating(_, _, .abandoned) = phase {
            effects.append(.finish(pending, target: bundleID, .failure(stuckError)))
            return
        }
        queue.append(pending)
        if let deadline = pending.deadline { armRequestTimer(deadline, now: now, &effects) }
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
    /// or — when a termination waited for it — send the notice. A request whose caller was already
    /// told `Unanswered` is not answered twice; the app's answer still counts as the app's.
    mutating func delivered(_ id: UInt64, generation: UInt64, _ result: Result<DeliveryAnswer, CourierError>, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        // Already answered when the app died meanwhile.
        guard let pending = inFlight, pending.id == id else { return }
        inFlight = nil
        let callerGone = inFlightAnswered
        inFlightAnswered = false
        lastActive = now
        switch result {
        case .success(let answer):
            failures = 0
            blockedUntil = nil
            handled += 1
            notResponding = false
            if callerGone {
                effects.append(.log(.debug, "\(bundleID) answered request=\(pending.id) after its caller's deadline"))
            } else {
                effects.append(.finish(pending, target: bundleID, .success(OpenOutcome(handled: answer.handled, bundleID: bundleID, reply: answer.reply, launched: pending.launched))))
            }
        case .failure(let error):
            if error.code == .notResponding {
                notResponding = true
                effects.append(.log(.warning, "\(error.message)"))
            }
            if !callerGone { effects.append(.finish(pending, target: bundleID, .failure(error))) }
            if error.code == .appFailed {
                // A kill on purpose (quit --force) is no failure of the app.
                if !forced { recordFailure(now: now, crashLoop: crashLoop, &effects) }
                if generation == self.generation { failedDelivery = pending.request.url }
            }
        }
        guard generation == self.generation else { return }
        if case .terminating(let name, let pid, .afterInFlight(let deadline)) = phase {
            phase = .terminating(uniqueName: name, pid: pid, step: .noticeSent)
            sendNotice(name, deadline: deadline, &effects)
        } else {
            startDelivery(&effects)
        }
    }

    // MARK: Deadlines and withdrawals

    /// Arms the request-deadline timer for `deadline`, unless it is already due earlier.
    private mutating func armRequestTimer(_ deadline: ContinuousClock.Instant, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        if let due = requestTimerDue, due <= deadline { return }
        requestTimerDue = deadline
        effects.append(.startTimer(.requestDeadline, bundleID: bundleID, generation: generation, after: max(.zero, deadline - now)))
    }

    /// The request-deadline timer fired: a caller's deadline (`timeout-ms`) ends only that caller's
    /// wait. A request still queued is withdrawn — nothing is delivered, the caller is told
    /// `Withdrawn`; the request in flight stays the app's (its answer still frees the app for the
    /// next one) and its caller is told `Unanswered`. Neither counts against the app.
    mutating func requestDeadlinesDue(now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        requestTimerDue = nil
        if queue.contains(where: { $0.deadline.map { $0 <= now } ?? false }) {
            let waited = waitingFor
            withdraw(where: { $0.deadline.map { $0 <= now } ?? false }, because: { pending in
                "the caller's deadline (timeout-ms \(pending.request.deliveryTimeout?.formatted ?? "?")) passed while the request waited \(waited); nothing was delivered, so it is safe to send again"
            }, &effects)
        }
        if let pending = inFlight, !inFlightAnswered, let deadline = pending.deadline, deadline <= now {
            inFlightAnswered = true
            effects.append(.finish(pending, target: bundleID, .failure(CourierError(.unanswered, "\(bundleID)\(pidText) received \(pending.request.url) but had not answered when the caller's deadline (timeout-ms \(pending.request.deliveryTimeout?.formatted ?? "?")) passed; it may still act on it. This is not counted as the app's failure"))))
        }
        let pendingDeadlines = queue.lazy.compactMap(\.deadline)
        let next = [inFlightAnswered ? nil : inFlight?.deadline, pendingDeadlines.min()].compactMap { $0 }.min()
        if let next { armRequestTimer(next, now: now, &effects) }
    }

    /// The caller `uniqueName` left the bus: the queued requests it was waiting for are withdrawn
    /// (nobody waits for them any more); one already in flight stays the app's, and so do those
    /// it did not wait for (`courier open --no-wait`) and the opens of files already in the app's
    /// Inbox (a drop).
    mutating func callerVanished(_ uniqueName: String, _ effects: inout [DispatcherEffect]) {
        func isFrom(_ pending: PendingRequest) -> Bool {
            pending.request.callerWaits && !pending.request.facts.droppedFile
                && (pending.request.callerIdentity?.uniqueName ?? pending.request.caller) == uniqueName
        }
        guard queue.contains(where: isFrom) else { return }
        withdraw(where: isFrom, because: { _ in "its caller (\(uniqueName)) left the bus before it was delivered; nothing was delivered" }, &effects)
    }

    /// Removes the queued requests `matching`, answering each `Withdrawn`, and keeps the launch
    /// options of a launch under way pointing at a request that is still queued.
    private mutating func withdraw(where matching: (PendingRequest) -> Bool, because reason: (PendingRequest) -> String, _ effects: inout [DispatcherEffect]) {
        var kept = Deque<PendingRequest>()
        for pending in queue {
            guard matching(pending) else {
                kept.append(pending)
                continue
            }
            effects.append(.finish(pending, target: bundleID, .failure(CourierError(.withdrawn, "\(pending.request.url) for \(bundleID) was withdrawn: \(reason(pending))"))))
        }
        queue = kept
        if case .launching(let pid, let options) = phase, let launchID = options.requestID, !queue.contains(where: { $0.id == launchID }) {
            phase = .launching(pid: pid, options: queue.first.map(Self.launchOptions(for:)) ?? .none)
        }
    }

    /// What the waiting was behind, for a withdrawn request's message.
    private var waitingFor: String {
        switch phase {
        case .launching: "for \(bundleID) to launch"
        case .terminating: "for \(bundleID) to finish terminating"
        case .running where notResponding: "behind a request \(bundleID)\(pidText) is not answering (not responding)"
        case .running: "behind earlier requests to \(bundleID)"
        case .notRunning: "for \(bundleID)"
        }
    }

    // MARK: Termination

    /// Terminates the app with notice: no more deliveries; `WillTerminate` once the request in
    /// flight (if any) is answered, or SIGTERM if it is not answered by `deadline`; SIGTERM when the
    /// app has answered the notice or `deadline` has passed; SIGKILL after the grace. Requests
    /// queued meanwhile wait for the relaunch — or, if the process is still on the bus a second
    /// after SIGKILL, are answered `NotResponding` (`terminationDeadlinePassed`).
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
            endRequest = reason
            if inFlight == nil {
                phase = .terminating(uniqueName: name, pid: pid, step: .noticeSent)
                sendNotice(name, deadline: deadline, &effects)
            } else {
                phase = .terminating(uniqueName: name, pid: pid, step: .afterInFlight(deadline: deadline))
                effects.append(.startTimer(.terminationDeadline, bundleID: bundleID, generation: generation, after: deadline))
            }
            return .success(())
        }
    }

    /// Kills the app's process with SIGKILL, without notice (`courier quit --force`): it saves
    /// nothing; its end is recorded as forced and is not counted as a failure. Requests queued
    /// meanwhile wait for the relaunch, as after a termination.
    mutating func kill(by who: String, _ effects: inout [DispatcherEffect]) -> Result<Void, CourierError> {
        guard !descriptor.dbusActivatable else {
            return .failure(CourierError(.notPermitted, "\(bundleID) is a desktop app the bus started (CourierDBusActivatable); Courier does not manage its life: close it in the app"))
        }
        let pid: Int32?
        switch phase {
        case .notRunning:
            return .failure(CourierError(.notRunning, "\(bundleID) is not running; nothing to quit"))
        case .launching(let launching, _):
            pid = launching
        case .running(let name, let running), .terminating(let name, let running, _):
            pid = running
            if running != nil {
                phase = .terminating(uniqueName: name, pid: running, step: .signalled)
                effects.append(.startTimer(.terminationDeadline, bundleID: bundleID, generation: generation, after: Self.exitAllowance))
            }
        }
        guard let pid else {
            return .failure(CourierError(.notPermitted, "\(bundleID) checked in without being launched by the broker, which holds no process of it to kill; end it by hand"))
        }
        endRequest = "quit --force by \(who)"
        forced = true
        effects.append(.log(.info, "killing \(bundleID) (pid \(pid)): quit --force by \(who); SIGKILL, no notice"))
        effects.append(.kill(pid: pid, process: heldProcess))
        return .success(())
    }

    private mutating func sendNotice(_ uniqueName: String, deadline: Duration, _ effects: inout [DispatcherEffect]) {
        effects.append(.notifyTermination(endpoint(uniqueName), generation: generation, deadline: deadline))
        effects.append(.startTimer(.terminationDeadline, bundleID: bundleID, generation: generation, after: deadline))
    }

    /// The app answered `WillTerminate` (or the call failed): signal it.
    mutating func noticeEnded(generation: UInt64, answered: Bool, grace: Duration, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .terminating(let name, let pid, .noticeSent) = phase else { return }
        signal(name, pid: pid, grace: grace, why: answered ? "answered WillTerminate" : "did not answer WillTerminate by its deadline", &effects)
    }

    /// The termination's timer of `generation` fired: the request in flight or the notice overran
    /// the deadline (signal it), or the signalled process is still on the bus (abandon it).
    mutating func terminationDeadlinePassed(generation: UInt64, grace: Duration, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .terminating(let name, let pid, let step) = phase else { return }
        switch step {
        case .afterInFlight:
            signal(name, pid: pid, grace: grace, why: "did not answer its request in flight by the termination deadline (no notice sent)", &effects)
        case .noticeSent:
            noticeEnded(generation: generation, answered: false, grace: grace, &effects)
        case .signalled:
            phase = .terminating(uniqueName: name, pid: pid, step: .abandoned)
            let error = stuckError
            effects.append(.log(.warning, "\(error.message)"))
            failQueue(error, &effects)
        case .abandoned:
            break
        }
    }

    /// SIGTERM (SIGKILL after `grace`) through the launcher or the held process; a second after
    /// that the timer looks whether it has left the bus.
    private mutating func signal(_ name: String, pid: Int32?, grace: Duration, why: String, _ effects: inout [DispatcherEffect]) {
        phase = .terminating(uniqueName: name, pid: pid, step: .signalled)
        if let pid {
            effects.append(.log(.debug, "\(bundleID) \(why); SIGTERM to pid \(pid)"))
            effects.append(.terminate(pid: pid, process: heldProcess))
        } else {
            effects.append(.log(.warning, "\(bundleID) \(why), and the broker knows no process of it to signal; it is terminating once it leaves the bus"))
        }
        effects.append(.startTimer(.terminationDeadline, bundleID: bundleID, generation: generation, after: grace + Self.exitAllowance))
    }

    /// How long after SIGKILL a process may take to leave the bus before it counts as stuck.
    static let exitAllowance: Duration = .seconds(1)

    /// The answer for requests to an app whose terminating process did not leave the bus.
    private var stuckError: CourierError {
        CourierError(.notResponding, "\(bundleID)\(pidText) is not responding: it was told to terminate and signalled, and is still on the bus; nothing was delivered. End it by hand (\(pid.map { "kill -KILL \($0)" } ?? "close it")), then retry")
    }

    /// " (pid N)" when the pid is known.
    var pidText: String { pid.map { " (pid \($0))" } ?? "" }

    // MARK: Exit

    /// The process of `generation` exited with `status`; `reason`, when the launcher knows why
    /// (its bus name is squatted), is the answer to the queue instead of the bare exit status.
    mutating func processExited(pid: Int32, generation: UInt64, status: ExitStatus, reason: CourierError? = nil, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        // The end was recorded when the app left the bus; its exit status comes now.
        if let index = ends.lastIndex(where: { $0.pid == pid && $0.status == nil }) {
            ends[index].status = status
            ends[index].reason = status.ending
            // Read again: it may have printed more after it left the bus.
            effects.append(.readLogTail(bundleID: bundleID, pid: pid))
        }
        guard generation == self.generation else { return }
        switch phase {
        case .launching:
            effects.append(.stopTimer(.launch, bundleID: bundleID, generation: generation))
            phase = .notRunning
            effects.append(.discardSavedState(bundleID: bundleID))
            let wasForced = forced
            let error = wasForced
                ? CourierError(.launchFailed, "\(bundleID) (pid \(pid)) was killed (quit --force) before checking in")
                : reason ?? CourierError(.launchFailed, "\(bundleID) (pid \(pid)) \(status.ending) before checking in; `courier log \(bundleID)` shows what it printed")
            recordEnd(reason: "\(status.ending) before checking in", status: status, pid: pid, now: now, &effects)
            if error.code != .nameSquatted, !wasForced { recordFailure(now: now, crashLoop: crashLoop, &effects) }
            failQueue(error, &effects)
            if !wasForced { keepAlive(now: now, crashLoop: crashLoop, &effects) }
        case .running, .terminating:
            gone(reason: status.ending, status: status, now: now, crashLoop: crashLoop, &effects)
        case .notRunning:
            effects.append(.log(.debug, "\(bundleID) pid \(pid) \(status.ending)"))
        }
    }

    /// The launch of `generation` did not check in in time: terminate it and answer the queue.
    mutating func launchTimedOut(generation: UInt64, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .launching(let pid?, _) = phase else { return }
        recordEnd(reason: "did not check in within \(descriptor.launchTimeout.formatted) and was terminated", status: nil, pid: pid, now: now, &effects)
        phase = .notRunning
        effects.append(.terminate(pid: pid, process: nil))
        effects.append(.discardSavedState(bundleID: bundleID))
        recordFailure(now: now, crashLoop: crashLoop, &effects)
        failQueue(CourierError(.launchTimeout, "\(bundleID) (pid \(pid)) did not check in within \(descriptor.launchTimeout.formatted) and was terminated; an app must call CheckIn when it is ready (the Courier library does)"), &effects)
        keepAlive(now: now, crashLoop: crashLoop, &effects)
    }

    /// The app stopped (exit, left the bus, replaced): answer the request it was handling with an
    /// error and relaunch it for the requests still queued. An end the broker did not ask for is a
    /// crash, not a termination: the state the app saved before is discarded (as the guide does
    /// when an app fails), so the relaunch does not restore it.
    mutating func gone(reason: String, status: ExitStatus? = nil, relaunch: Bool = true, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        switch phase {
        case .launching: effects.append(.stopTimer(.launch, bundleID: bundleID, generation: generation))
        case .terminating: effects.append(.stopTimer(.terminationDeadline, bundleID: bundleID, generation: generation))
        case .running where relaunch: effects.append(.discardSavedState(bundleID: bundleID))
        case .running, .notRunning: break
        }
        guard phase.isAlive else { return }
        let requested = endRequest != nil
        let wasForced = forced
        let lifetime = startedAt.map { now - $0 }
        recordEnd(reason: reason, status: status, pid: pid, now: now, &effects)
        phase = .notRunning
        heldProcess = nil
        effects.append(.log(requested ? .debug : .info, "\(bundleID) \(reason)"))
        var failureRecorded = false
        if let pending = inFlight {
            inFlight = nil
            if !wasForced {
                recordFailure(now: now, crashLoop: crashLoop, &effects)
                failureRecorded = true
            }
            if !inFlightAnswered {
                let how = wasForced ? "was killed (quit --force)" : reason
                effects.append(.finish(pending, target: bundleID, .failure(CourierError(.appFailed, "\(bundleID) \(how) while handling \(pending.request.url); the next request relaunches it"))))
            }
            inFlightAnswered = false
        }
        reportState(&effects)
        guard relaunch else { return }
        if descriptor.keepAlive, !requested {
            // A keep-alive instance that ran long enough ended, it did not fail to start: the count
            // starts over. One that ended soon after its start counts as a failure.
            if let lifetime, lifetime >= crashLoop.stableRun {
                failures = 0
                blockedUntil = nil
            } else if !failureRecorded {
                recordFailure(now: now, crashLoop: crashLoop, &effects)
            }
            keepAlive(now: now, crashLoop: crashLoop, &effects)
        }
        launch(now: now, &effects)
    }

    /// A keep-alive app that ended without being asked to: relaunched (after the back-off), or,
    /// after `CrashLoopPolicy.keepAliveAttempts` failures in a row, marked failed.
    private mutating func keepAlive(now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard descriptor.keepAlive, !keepAliveFailed, case .notRunning = phase else { return }
        if failures >= crashLoop.keepAliveAttempts {
            keepAliveFailed = true
            order = nil
            effects.append(.log(.error, "\(bundleID) (keep-alive) failed \(failures) times in a row; it is marked failed and not relaunched by itself any more: see `courier status \(bundleID)`, fix it, then `courier launch \(bundleID)`"))
            return
        }
        if order == nil { order = LaunchOrder(by: LaunchOrder.keepAliveStarter) }
        launch(now: now, &effects)
    }

    /// The keep-alive timer fired: the back-off is over.
    mutating func keepAliveDue(generation: UInt64, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .notRunning = phase, !keepAliveFailed else { return }
        launch(now: now, &effects)
    }

    /// The last lines of process `pid`'s log, read for its end.
    mutating func logRead(pid: Int32, lines: [String]) {
        guard let index = ends.lastIndex(where: { $0.pid == pid }) else { return }
        ends[index].log = lines
    }

    /// Appends the end of the current instance to `ends`, and asks for its last log lines when the
    /// broker launched it (held processes print elsewhere).
    private mutating func recordEnd(reason: String, status: ExitStatus?, pid: Int32?, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        if let pid, heldProcess == nil { effects.append(.readLogTail(bundleID: bundleID, pid: pid)) }
        ends.append(AppEnd(
            pid: pid, status: status, endedAt: now, lifetime: startedAt.map { now - $0 }, reason: reason,
            requestedBy: endRequest, forced: forced, unanswered: inFlight?.request.url ?? failedDelivery, queued: queue.count
        ))
        if ends.count > Self.keptEnds { ends.removeFirst() }
        endRequest = nil
        forced = false
    }

    // MARK: Helpers

    private func endpoint(_ uniqueName: String) -> AppEndpoint {
        AppEndpoint(bundleID: bundleID, uniqueName: uniqueName, freedesktopApplication: descriptor.dbusActivatable, pid: pid)
    }

    /// The launch options that carry `pending` to the app it launches.
    private static func launchOptions(for pending: PendingRequest) -> LaunchOptions {
        LaunchOptions(url: pending.request.url, requestID: pending.id, options: pending.request.options, facts: pending.request.facts)
    }

    private mutating func recordFailure(now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        failures += 1
        if let delay = crashLoop.backoff(afterFailures: failures) {
            blockedUntil = now + delay
            effects.append(.log(.warning, "\(bundleID) failed \(failures) times in a row; no relaunch for \(delay.formatted)"))
        }
    }

    /// Answers every queued request, and every caller waiting for a launch, with `error`.
    private mutating func failQueue(_ error: CourierError, _ effects: inout [DispatcherEffect]) {
        while let pending = queue.popFirst() {
            effects.append(.finish(pending, target: bundleID, .failure(error)))
        }
        order = nil
        if !launchWaiters.isEmpty {
            effects.append(.launchAnswered(launchWaiters, .failure(error)))
            launchWaiters = []
        }
    }
}
