public import CourierNames
public import Logging
import Synchronization
import Glibc

/// The broker core: routes each request to its app, launching the app when it is not running.
///
/// Contract, per app:
/// - Requests are queued in the order `submit` is called and delivered one at a time in that
///   order; none is lost, none is delivered twice, each completes exactly once.
/// - Single flight: while an app is launching, further requests wait in its queue; one launch
///   serves them all. Delivery starts after the app's `CheckIn`, whose launch options carry the
///   first queued request (the URL the app was launched for).
/// - Failures are answered, never hung: a launch that fails (`LaunchFailed`, errno's reason), a
///   process that exits before checking in (`LaunchFailed`, its exit status), one that does not
///   check in within its timeout (`LaunchTimeout`, the process is terminated), an app that dies
///   while handling (`AppFailed`; remaining requests relaunch it). Repeated failures back off
///   (`CrashLoopPolicy`).
/// - Apps are independent: each has its own queue and delivery chain, so a slow app delays only
///   its own requests.
///
/// Every method is synchronous and may be called from any thread. The book-keeping is one value,
/// `DispatcherState`, whose pure transitions say what to do (`DispatcherEffect`); this class is the
/// runner: it applies a transition under its one lock, then performs the effects — spawns,
/// deliveries, completions, log lines, timers — after releasing it, so nothing slow runs under it. No task waits for an app: a delivery is a call with
/// a completion (`Deliverer.deliver(_:to:completion:)`), and the answer starts the next delivery.
/// A warm request therefore goes from `submit` to the app's bus call on the caller's thread, and
/// its answer to the caller on the thread the app's reply arrived on, with no task or actor hop.
public final class Dispatcher: Sendable {
    public struct Configuration: Sendable {
        /// Between SIGTERM and SIGKILL when a stray process is terminated.
        public var terminationGrace: Duration
        /// Requests queued per app beyond which `LimitsExceeded` is answered.
        public var maxQueuedPerApp: Int
        public var crashLoop: CrashLoopPolicy
        /// Where the dispatcher's few tasks (timers, exit notices) prefer to run. The D-Bus
        /// adapter passes its connection's I/O thread.
        public var taskExecutor: (any TaskExecutor)?
        /// Idle timeout, memory pressure, and the notice an app gets before it is terminated.
        public var termination: TerminationPolicy
        /// Where preserved states are read (handed back at `CheckIn`) and discarded (after a
        /// crash); nil: apps are not restored.
        public var savedState: SavedStateStore?

        public init(terminationGrace: Duration = .seconds(2), maxQueuedPerApp: Int = 4096, crashLoop: CrashLoopPolicy = .init(), taskExecutor: (any TaskExecutor)? = nil, termination: TerminationPolicy = .init(), savedState: SavedStateStore? = nil) {
            self.terminationGrace = terminationGrace
            self.maxQueuedPerApp = maxQueuedPerApp
            self.crashLoop = crashLoop
            self.taskExecutor = taskExecutor
            self.termination = termination
            self.savedState = savedState
        }
    }

    public typealias Completion = @Sendable (Result<OpenOutcome, CourierError>) -> Void

    private let state: Mutex<DispatcherState>
    /// Timers by kind and bundle id, with the generation each is for: performing `stopTimer`
    /// cancels one. Effects of two transitions may be performed on two threads at once, so a timer
    /// is only replaced or stopped by its own or a later generation. A timer that fires late is
    /// harmless (its transition checks the generation); stopping only frees the sleeping task.
    private let timers = Mutex<[TimerKey: (generation: UInt64, task: Task<Void, Never>)]>([:])
    private struct TimerKey: Hashable {
        var timer: DispatcherTimer
        var bundleID: String
    }
    /// Applies the termination policies every `sweepInterval` (when one is on).
    private let sweeper = Mutex<Task<Void, Never>?>(nil)
    private let resolver: any HandlerResolver
    private let launcher: any Launcher
    private let deliverer: any Deliverer
    private let configuration: Configuration
    private let logger: Logger
    private let observer: (@Sendable (DispatcherEvent) -> Void)?
    private let clock = ContinuousClock()

    public init(
        resolver: any HandlerResolver,
        launcher: any Launcher,
        deliverer: any Deliverer,
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "org.courier.broker"),
        observer: (@Sendable (DispatcherEvent) -> Void)? = nil
    ) {
        self.state = Mutex(DispatcherState(policy: .init(maxQueuedPerApp: configuration.maxQueuedPerApp, crashLoop: configuration.crashLoop, termination: configuration.termination, terminationGrace: configuration.terminationGrace)))
        self.observer = observer
        self.resolver = resolver
        self.launcher = launcher
        self.deliverer = deliverer
        self.configuration = configuration
        self.logger = logger
    }

    deinit {
        sweeper.withLock { $0?.cancel() }
    }

    // MARK: Requests

    /// Queues `request` and returns at once; `completion` is called exactly once with the outcome
    /// (possibly before `submit` returns, for a request refused at once).
    public func submit(_ request: OpenRequest, completion: @escaping Completion) {
        let received = clock.now
        let descriptor: AppDescriptor
        do {
            descriptor = try resolver.resolve(url: request.url, bundleID: request.bundleID)
        } catch {
            report(request, target: request.bundleID ?? "-", received: received, launched: false, .failure(error))
            return completion(.failure(error))
        }
        let submitted = state.withLock { state -> Result<[DispatcherEffect], CourierError>? in
            if let refusal = state.callerRefusal(request, to: descriptor) { return .failure(refusal) }
            return state.submit(request, to: descriptor, received: received, completion: completion, now: clock.now).map { .success($0) }
        }
        if case .failure(let refusal) = submitted {
            logger.info("\(refusal.message)")
            report(request, target: descriptor.bundleID, received: received, launched: false, .failure(refusal))
            return completion(.failure(refusal))
        }
        guard case .success(let effects) = submitted else {
            let error = CourierError(.limitsExceeded, "\(descriptor.bundleID) already has \(configuration.maxQueuedPerApp) requests waiting; retry when it has caught up")
            report(request, target: descriptor.bundleID, received: received, launched: false, .failure(error))
            return completion(.failure(error))
        }
        perform(effects)
    }

    /// Routes `request` and waits for its outcome.
    public func open(_ request: OpenRequest) async throws(CourierError) -> OpenOutcome {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<OpenOutcome, CourierError>, Never>) in
            submit(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    // MARK: App life cycle

    /// An app process says it is ready, from the unique bus name `uniqueName` (the adapter has
    /// checked that this name owns `bundleID`). Returns the launch options: the request it was
    /// launched for, or `.none` when it was started by other means. `process`: the verified
    /// process behind a check-in the broker did not launch (`ReceiverGuard.admit`), held so that
    /// quit, the policies and `courier ps` treat it like a launched one.
    public func checkIn(bundleID: String, uniqueName: String, process: ProcessHandle? = nil) throws(CourierError) -> LaunchOptions {
        let known = state.withLock { $0.apps[bundleID]?.descriptor }
        guard let descriptor = known ?? resolver.descriptor(bundleID: bundleID) else {
            throw CourierError(.notPermitted, "no manifest is registered for \(bundleID); register it (courier register) before checking in")
        }
        var (options, effects) = try state.withLock { $0.checkIn(descriptor, uniqueName: uniqueName, process: process, now: clock.now) }.get()
        if !options.fresh { options.restorationArchive = configuration.savedState?.read(bundleID) }
        perform(effects)
        return options
    }

    /// Terminates the app with notice (`courier quit`): see `AppRecord.terminate`. Throws
    /// `NotRunning` when it is not running (or still launching).
    public func terminate(bundleID: String, reason: String = "quit on request") throws(CourierError) {
        perform(try state.withLock { $0.terminate(bundleID, reason: reason) }.get())
    }

    /// Kills the app with SIGKILL, without notice (`courier quit --force`): see `AppRecord.kill`.
    /// Throws `NotRunning` when it is not running.
    public func kill(bundleID: String, by who: String) throws(CourierError) {
        perform(try state.withLock { $0.kill(bundleID, by: who) }.get())
    }

    /// Starts the app `descriptor` without a URL (`courier launch`): returns once it has checked
    /// in, or at once when it already runs (`alreadyRunning`). Throws why it could not start.
    public func launch(_ descriptor: AppDescriptor, _ order: LaunchOrder) async throws(CourierError) -> LaunchAnswer {
        try await waitForLaunch { waiter in state.withLock { $0.start(descriptor, order, waiter: waiter, now: clock.now) } }
    }

    /// Ends the app's instance with notice and starts a new one (`courier restart`); returns once
    /// the new one has checked in. Requests that arrive meanwhile are delivered to the new one.
    public func restart(_ descriptor: AppDescriptor, _ order: LaunchOrder) async throws(CourierError) -> LaunchAnswer {
        try await waitForLaunch { waiter in state.withLock { $0.restart(descriptor, order, waiter: waiter, now: clock.now) } }
    }

    /// Starts the apps that ask to run from the broker's start (`CourierRunAtLoad`), without
    /// waiting for them; a failure is in the log and in `courier status ID`.
    public func startAtLoad(_ descriptors: [AppDescriptor]) {
        for descriptor in descriptors where descriptor.runAtLoad {
            perform(state.withLock { $0.start(descriptor, LaunchOrder(by: LaunchOrder.runAtLoadStarter), waiter: nil, now: clock.now) })
        }
    }

    private func waitForLaunch(_ transition: (@escaping AppRecord.LaunchWaiter) -> [DispatcherEffect]) async throws(CourierError) -> LaunchAnswer {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<LaunchAnswer, CourierError>, Never>) in
            perform(transition { continuation.resume(returning: $0) })
        }
        return try result.get()
    }

    /// Starts applying the termination policies (idle timeout, memory pressure) every sweep
    /// interval; nothing when both are off. The D-Bus adapter calls it once it serves.
    public func startTerminationPolicies() {
        let policy = configuration.termination
        guard policy.isActive else { return }
        let task = Task(executorPreference: configuration.taskExecutor) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: policy.sweepInterval)
                guard let self else { return }
                self.sweep()
            }
        }
        sweeper.withLock { $0?.cancel(); $0 = task }
    }

    /// Stops the policies' sweep.
    public func stopTerminationPolicies() {
        sweeper.withLock { $0?.cancel(); $0 = nil }
    }

    /// Applies the termination policies now (the sweep does this every interval; tests call it to
    /// choose the moment).
    public func sweep() {
        var underPressure = false
        if let pressure = configuration.termination.memoryPressure {
            do {
                underPressure = try pressure.source.read().some10 >= pressure.threshold
            } catch {
                logger.warning("\(error.message)")
            }
        }
        perform(state.withLock { $0.reclaim(now: clock.now, underPressure: underPressure) })
    }

    /// A unique bus name left the bus (`NameOwnerChanged`): the app it belonged to is gone.
    public func busNameVanished(_ uniqueName: String) {
        perform(state.withLock { $0.busNameVanished(uniqueName, now: clock.now) })
    }

    /// `uniqueName` released the bus name `bundleID` while staying connected: if that was the
    /// checked-in app, it is gone.
    public func bundleNameReleased(_ bundleID: String, by uniqueName: String) {
        perform(state.withLock { $0.bundleNameReleased(bundleID, by: uniqueName, now: clock.now) })
    }

    /// The bundle id of the app behind a caller, from what the broker itself knows: the unique name
    /// that checked in, or a pid Courier launched. "" when the caller is not a known app.
    public func sourceApplication(uniqueName: String, pid: Int32?) -> String {
        state.withLock { $0.sourceApplication(uniqueName: uniqueName, pid: pid) }
    }

    /// The state of one app.
    public func state(of bundleID: String) -> AppState {
        state.withLock { $0.apps[bundleID]?.publicState ?? .notRunning }
    }

    /// Every app the broker has dealt with since it started.
    public func statuses() -> [AppStatus] {
        let now = clock.now
        return state.withLock { state in state.apps.values.map { $0.status(now: now) } }
            .sorted { $0.bundleID < $1.bundleID }
    }

    // MARK: Runner

    /// Performs what transitions left to do, in order, outside the lock. A transition reported back
    /// meanwhile (a spawn's result, a delivery answered before `deliver` returned — a call that
    /// could not even be sent, say on a closed connection) appends its effects to this same loop,
    /// not a recursion: a queue of thousands failing that way must not grow the stack.
    private func perform(_ effects: [DispatcherEffect]) {
        var work = effects[...]
        while let effect = work.popFirst() {
            switch effect {
            case .event(let event):
                observer?(event)
            case .log(let level, let message):
                logger.log(level: level, message)
            case .spawn(let spec, let generation):
                if launcher.mustWaitBeforeLaunch(spec.bundleID) {
                    // The previous instance still owns the app's bus name: spawn once it has gone.
                    Task(executorPreference: configuration.taskExecutor) { [self] in
                        await launcher.waitUntilLaunchable(spec.bundleID)
                        perform(spawn(spec, generation: generation))
                    }
                } else {
                    work.append(contentsOf: spawn(spec, generation: generation))
                }
            case .startTimer(let kind, let bundleID, let generation, let delay):
                let timer = Task(executorPreference: configuration.taskExecutor) {
                    try? await Task.sleep(for: delay)
                    if !Task.isCancelled { self.perform(self.state.withLock { $0.timerFired(kind, bundleID, generation: generation, now: self.clock.now) }) }
                }
                let key = TimerKey(timer: kind, bundleID: bundleID)
                let stale = timers.withLock { timers -> Task<Void, Never>? in
                    if let current = timers[key], current.generation > generation { return timer }
                    return timers.updateValue((generation, timer), forKey: key)?.task
                }
                stale?.cancel()
            case .stopTimer(let kind, let bundleID, let generation):
                let key = TimerKey(timer: kind, bundleID: bundleID)
                let stopped = timers.withLock { timers -> Task<Void, Never>? in
                    guard let current = timers[key], current.generation <= generation else { return nil }
                    return timers.removeValue(forKey: key)?.task
                }
                stopped?.cancel()
            case .notifyTermination(let endpoint, let generation, let deadline):
                deliverer.notifyTermination(endpoint, deadline: deadline) { [self] result in
                    if case .failure(let error) = result { logger.debug("\(error.message)") }
                    perform(state.withLock { $0.noticeAnswered(endpoint.bundleID, generation: generation) })
                }
            case .discardSavedState(let bundleID):
                if configuration.savedState?.discard(bundleID) == true {
                    logger.info("\(bundleID) ended without being asked to terminate (a crash, not a termination): its preserved state was discarded")
                }
            case .terminate(let pid, let process):
                if let process { process.terminate(grace: configuration.terminationGrace) }
                else { launcher.terminate(pid: pid, grace: configuration.terminationGrace) }
            case .kill(let pid, let process):
                if let process { process.send(SIGKILL) } else { launcher.kill(pid: pid) }
            case .readLogTail(let bundleID, let pid):
                let lines = launcher.logTail(bundleID: bundleID, lines: AppEnd.logLines)
                state.withLock { $0.logRead(bundleID, pid: pid, lines: lines) }
            case .launchAnswered(let waiters, let result):
                for waiter in waiters { waiter(result) }
            case .finish(let pending, let target, let result):
                // The caller first: the log line (formatting, a timestamp, a write to stderr —
                // courierd logs every open at its default level) need not delay the answer.
                pending.completion(result)
                report(pending.request, target: target, received: pending.received, launched: pending.launched, result)
            case .deliver(let pending, let delivery, let endpoint, let generation):
                if let answer = deliver(pending, delivery, to: endpoint, generation: generation) {
                    work.append(contentsOf: answer)
                }
            }
        }
    }

    /// Spawns the app; the result is a transition whose effects the caller performs.
    private func spawn(_ spec: LaunchSpec, generation: UInt64) -> [DispatcherEffect] {
        let bundleID = spec.bundleID
        let executor = configuration.taskExecutor
        do {
            // The exit notice comes from the reaper's thread, possibly at once: it re-enters
            // through a task.
            let pid = try launcher.launch(spec) { pid, status in
                Task(executorPreference: executor) {
                    // Asked outside the lock: why it ended before checking in, if the launcher knows.
                    let reason = self.launcher.failureBeforeCheckIn(bundleID: bundleID, pid: pid, status: status)
                    self.perform(self.state.withLock { $0.processExited(bundleID, pid: pid, generation: generation, status: status, reason: reason, now: self.clock.now) })
                }
            }
            return state.withLock { $0.spawned(bundleID, pid: pid, generation: generation) }
        } catch {
            return state.withLock { $0.spawnFailed(bundleID, error, generation: generation, now: clock.now) }
        }
    }

    /// Starts one delivery. Its answer, when it arrives after `deliver` has returned (the usual
    /// case), is performed from the completion; one that arrived before is returned (as the
    /// effects of its transition) for the caller's loop.
    private func deliver(_ pending: PendingRequest, _ delivery: Delivery, to endpoint: AppEndpoint, generation: UInt64) -> [DispatcherEffect]? {
        observer?(.delivering(bundleID: endpoint.bundleID))
        let answer = InlineAnswer()
        deliverer.deliver(delivery, to: endpoint) { [self] result in
            guard answer.takeUnlessInline(result) else { return }
            perform(delivered(pending, bundleID: endpoint.bundleID, generation: generation, result))
        }
        return answer.deliverReturned().map { delivered(pending, bundleID: endpoint.bundleID, generation: generation, $0) }
    }

    private func delivered(_ pending: PendingRequest, bundleID: String, generation: UInt64, _ result: Result<DeliveryAnswer, CourierError>) -> [DispatcherEffect] {
        observer?(.delivered(bundleID: bundleID))
        return state.withLock { $0.delivered(bundleID, requestID: pending.id, generation: generation, result, now: clock.now) }
    }

    /// Hands a delivery's answer either to the completion (when it arrives after `deliver` has
    /// returned, the usual case) or back to the runner's loop (when it arrives before).
    private final class InlineAnswer: Sendable {
        private let state = Mutex<(returned: Bool, answer: Result<DeliveryAnswer, CourierError>?)>((false, nil))

        /// From the completion: true when the completion should handle `result` itself.
        func takeUnlessInline(_ result: Result<DeliveryAnswer, CourierError>) -> Bool {
            state.withLock { state in
                if state.returned { return true }
                state.answer = result
                return false
            }
        }

        /// From the runner, once `deliver` has returned: the answer that came before that, if any.
        func deliverReturned() -> Result<DeliveryAnswer, CourierError>? {
            state.withLock { state in
                state.returned = true
                return state.answer
            }
        }
    }

    /// The one info line per routing decision: scheme, caller, target, outcome, time.
    private func report(_ request: OpenRequest, target: String, received: ContinuousClock.Instant, launched: Bool, _ result: Result<OpenOutcome, CourierError>) {
        guard logger.logLevel <= .info else { return }
        let scheme = request.url.prefix(while: { $0 != ":" }).prefix(32)
        let outcome: String
        switch result {
        case .success(let answer): outcome = answer.handled ? "handled" : "declined"
        case .failure(let error): outcome = error.code.rawValue
        }
        let caller = request.caller.isEmpty ? "-" : request.caller
        let source = request.sourceApplication.isEmpty ? "" : " (\(request.sourceApplication))"
        logger.info("open \(scheme): caller=\(caller)\(source) target=\(target) outcome=\(outcome)\(launched ? " launched" : "") time=\((clock.now - received).formatted)")
        if case .failure(let error) = result { logger.debug("\(error.message)") }
    }
}

extension Duration {
    /// "12.3ms", "10s": compact and unit-bearing, for logs and messages.
    var formatted: String {
        let (seconds, attoseconds) = components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if milliseconds >= 1000 {
            let value = milliseconds / 1000
            return value == value.rounded() ? "\(Int(value))s" : "\((value * 10).rounded() / 10)s"
        }
        return "\((milliseconds * 10).rounded() / 10)ms"
    }
}
