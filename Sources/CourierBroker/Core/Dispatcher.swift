import DequeModule
public import Logging
import Synchronization

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
/// Every method is synchronous and may be called from any thread: the book-keeping is one value
/// (`State`) behind one lock, and nothing slow runs under it — completions, deliveries and the
/// routing log line run after it is released. No task waits for an app: a delivery is a call with
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
        /// Where the dispatcher's few tasks (launch timers, exit notices) prefer to run. The D-Bus
        /// adapter passes its connection's I/O thread.
        public var taskExecutor: (any TaskExecutor)?

        public init(terminationGrace: Duration = .seconds(2), maxQueuedPerApp: Int = 4096, crashLoop: CrashLoopPolicy = .init(), taskExecutor: (any TaskExecutor)? = nil) {
            self.terminationGrace = terminationGrace
            self.maxQueuedPerApp = maxQueuedPerApp
            self.crashLoop = crashLoop
            self.taskExecutor = taskExecutor
        }
    }

    public typealias Completion = @Sendable (Result<OpenOutcome, BrokerError>) -> Void

    private struct Pending: Sendable {
        let id: UInt64
        let request: OpenRequest
        let received: ContinuousClock.Instant
        let completion: Completion
        let launched: Bool
    }

    private enum Phase {
        case notRunning
        case launching(pid: Int32, generation: UInt64, options: LaunchOptions, timer: Task<Void, Never>)
        case running(uniqueName: String, pid: Int32?, generation: UInt64)
    }

    private struct Record {
        var descriptor: AppDescriptor
        var phase: Phase = .notRunning
        var queue: Deque<Pending> = []
        /// The request being delivered; its answer starts the next delivery.
        var inFlight: Pending?
        /// Bumped at every launch and check-in, so late events of an earlier process are ignored.
        var generation: UInt64 = 0
        var launchRequestID: UInt64?
        var failures = 0
        var blockedUntil: ContinuousClock.Instant?
    }

    private struct State {
        var apps: [String: Record] = [:]
        var nextRequestID: UInt64 = 1

        /// Runs `body` on the record of `bundleID` in place: one lookup, and no copy of the record
        /// (a copy shares the queue's storage, and changing the queue would then copy it whole).
        mutating func withRecord<R>(_ bundleID: String, _ body: (inout Record) -> R?) -> R? {
            guard let index = apps.index(forKey: bundleID) else { return nil }
            return body(&apps.values[index])
        }
    }

    /// What a state change leaves to do once the lock is released, in this order.
    private struct Effects {
        var events: [DispatcherEvent] = []
        var finished: [(Pending, target: String, Result<OpenOutcome, BrokerError>)] = []
        var deliveries: [(Pending, Delivery, AppEndpoint, generation: UInt64)] = []

        var isEmpty: Bool { events.isEmpty && finished.isEmpty && deliveries.isEmpty }

        mutating func append(_ other: Effects) {
            events += other.events
            finished += other.finished
            deliveries += other.deliveries
        }
    }

    private let state = Mutex(State())
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
        self.observer = observer
        self.resolver = resolver
        self.launcher = launcher
        self.deliverer = deliverer
        self.configuration = configuration
        self.logger = logger
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
        let bundleID = descriptor.bundleID
        let effects = state.withLock { state -> Effects? in
            var request = request
            if let identity = request.callerIdentity {
                request.sourceApplication = Self.sourceApplication(in: state, uniqueName: identity.uniqueName, pid: identity.pid)
            }
            // Taken out of the table while it changes, so appending does not copy the queue.
            var record = state.apps.removeValue(forKey: bundleID) ?? Record(descriptor: descriptor)
            record.descriptor = descriptor
            if descriptor.dbusActivatable, case .notRunning = record.phase {
                // A foreign org.freedesktop.Application never checks in: it is reachable at its
                // well-known name, which the bus activates on the first call (single flight there).
                record.generation += 1
                record.phase = .running(uniqueName: bundleID, pid: nil, generation: record.generation)
            }
            guard record.queue.count < configuration.maxQueuedPerApp else {
                state.apps[bundleID] = record
                return nil
            }
            let id = state.nextRequestID
            state.nextRequestID += 1
            var isRunning = false
            if case .running = record.phase { isRunning = true }
            record.queue.append(Pending(id: id, request: request, received: received, completion: completion, launched: !isRunning))
            state.apps[bundleID] = record
            var effects = Effects()
            switch record.phase {
            case .running: startDelivery(bundleID, in: &state, &effects)
            case .launching: logger.debug("queued behind the launch of \(bundleID)", metadata: ["request": "\(id)"])
            case .notRunning: launch(bundleID, in: &state, &effects)
            }
            return effects
        }
        guard let effects else {
            let error = BrokerError(.limitsExceeded, "\(bundleID) already has \(configuration.maxQueuedPerApp) requests waiting; retry when it has caught up")
            report(request, target: bundleID, received: received, launched: false, .failure(error))
            return completion(.failure(error))
        }
        run(effects)
    }

    /// Routes `request` and waits for its outcome.
    public func open(_ request: OpenRequest) async throws(BrokerError) -> OpenOutcome {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<OpenOutcome, BrokerError>, Never>) in
            submit(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    // MARK: App life cycle

    /// An app process says it is ready, from the unique bus name `uniqueName` (the adapter has
    /// checked that this name owns `bundleID`). Returns the launch options: the request it was
    /// launched for, or `.none` when it was started by other means.
    public func checkIn(bundleID: String, uniqueName: String) throws(BrokerError) -> LaunchOptions {
        let known = state.withLock { $0.apps[bundleID]?.descriptor }
        guard let descriptor = known ?? resolver.descriptor(bundleID: bundleID) else {
            throw BrokerError(.notPermitted, "no manifest is registered for \(bundleID); register it (courier register) before checking in")
        }
        let outcome = state.withLock { state -> Result<(LaunchOptions, Effects), BrokerError> in
            var effects = Effects()
            if state.apps[bundleID] == nil { state.apps[bundleID] = Record(descriptor: descriptor) }
            effects.events.append(.checkedIn(bundleID: bundleID))
            let options: LaunchOptions
            switch state.apps[bundleID]!.phase {
            case .launching(let pid, let generation, let launchOptions, let timer):
                timer.cancel()
                state.apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: pid, generation: generation)
                state.apps[bundleID]!.launchRequestID = launchOptions.requestID
                options = launchOptions
            case .notRunning:
                state.apps[bundleID]!.generation += 1
                state.apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: nil, generation: state.apps[bundleID]!.generation)
                options = .none
            case .running(let current, _, _):
                if current == uniqueName {
                    return .failure(BrokerError(.notPermitted, "\(bundleID) already checked in from \(uniqueName); call CheckIn once per process"))
                }
                appGone(bundleID, reason: "was replaced by \(uniqueName)", relaunch: false, in: &state, &effects)
                state.apps[bundleID]!.generation += 1
                state.apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: nil, generation: state.apps[bundleID]!.generation)
                options = .none
            }
            logger.debug("\(bundleID) checked in", metadata: ["name": "\(uniqueName)", "launch-url": "\(options.url ?? "")"])
            startDelivery(bundleID, in: &state, &effects)
            return .success((options, effects))
        }
        let (options, effects) = try outcome.get()
        run(effects)
        return options
    }

    /// A unique bus name left the bus (`NameOwnerChanged`): the app it belonged to is gone.
    public func busNameVanished(_ uniqueName: String) {
        change { state, effects in
            for (bundleID, record) in state.apps {
                if case .running(let name, _, _) = record.phase, name == uniqueName {
                    appGone(bundleID, reason: "left the bus", in: &state, &effects)
                }
            }
        }
    }

    /// `uniqueName` released the bus name `bundleID` while staying connected: if that was the
    /// checked-in app, it is gone.
    public func bundleNameReleased(_ bundleID: String, by uniqueName: String) {
        change { state, effects in
            if case .running(let name, _, _)? = state.apps[bundleID]?.phase, name == uniqueName {
                appGone(bundleID, reason: "released its bus name", in: &state, &effects)
            }
        }
    }

    /// The bundle id of the app behind a caller, from what the broker itself knows: the unique name
    /// that checked in, or a pid Courier launched. "" when the caller is not a known app.
    public func sourceApplication(uniqueName: String, pid: Int32?) -> String {
        state.withLock { Self.sourceApplication(in: $0, uniqueName: uniqueName, pid: pid) }
    }

    /// The state of one app.
    public func state(of bundleID: String) -> AppState {
        state.withLock { $0.apps[bundleID].map { Self.publicState($0.phase) } ?? .notRunning }
    }

    /// Every app the broker has dealt with since it started.
    public func statuses() -> [AppStatus] {
        state.withLock { state in
            state.apps.map { AppStatus(bundleID: $0.key, state: Self.publicState($0.value.phase), queued: $0.value.queue.count + ($0.value.inFlight == nil ? 0 : 1), consecutiveFailures: $0.value.failures) }
        }
        .sorted { $0.bundleID < $1.bundleID }
    }

    // MARK: Internals

    /// Applies one state change under the lock, then runs what it left to do.
    private func change(_ body: (inout State, inout Effects) -> Void) {
        let effects = state.withLock { state in
            var effects = Effects()
            body(&state, &effects)
            return effects
        }
        run(effects)
    }

    /// Runs what state changes left to do. A delivery that completes before `deliver` returns (a
    /// call that could not even be sent, say on a closed connection) is handled in this loop, not
    /// by recursion: a queue of thousands failing that way must not grow the stack.
    private func run(_ effects: Effects) {
        var effects = effects
        while true {
            if let observer { effects.events.forEach(observer) }
            for (pending, target, result) in effects.finished { finish(pending, target: target, result) }
            var next = Effects()
            for (pending, delivery, endpoint, generation) in effects.deliveries {
                observer?(.delivering(bundleID: endpoint.bundleID))
                let answer = InlineAnswer()
                deliverer.deliver(delivery, to: endpoint) { [self] result in
                    guard answer.takeUnlessInline(result) else { return }
                    run(delivered(pending, bundleID: endpoint.bundleID, generation: generation, result))
                }
                if let result = answer.deliverReturned() {
                    next.append(delivered(pending, bundleID: endpoint.bundleID, generation: generation, result))
                }
            }
            if next.isEmpty { return }
            effects = next
        }
    }

    /// Hands a delivery's answer either to the completion (when it arrives after `deliver` has
    /// returned, the usual case) or back to `run` (when it arrives before).
    private final class InlineAnswer: Sendable {
        private let state = Mutex<(returned: Bool, answer: Result<DeliveryAnswer, BrokerError>?)>((false, nil))

        /// From the completion: true when the completion should handle `result` itself.
        func takeUnlessInline(_ result: Result<DeliveryAnswer, BrokerError>) -> Bool {
            state.withLock { state in
                if state.returned { return true }
                state.answer = result
                return false
            }
        }

        /// From `run`, once `deliver` has returned: the answer that came before that, if any.
        func deliverReturned() -> Result<DeliveryAnswer, BrokerError>? {
            state.withLock { state in
                state.returned = true
                return state.answer
            }
        }
    }

    private static func sourceApplication(in state: State, uniqueName: String, pid: Int32?) -> String {
        for (bundleID, record) in state.apps {
            switch record.phase {
            case .running(let name, let launchedPid, _):
                if name == uniqueName || (pid != nil && launchedPid == pid) { return bundleID }
            case .launching(let launchedPid, _, _, _):
                if pid != nil && launchedPid == pid { return bundleID }
            case .notRunning:
                continue
            }
        }
        return ""
    }

    private static func publicState(_ phase: Phase) -> AppState {
        switch phase {
        case .notRunning: .notRunning
        case .launching(let pid, _, _, _): .launching(pid: pid)
        case .running(let name, let pid, _): .running(uniqueName: name, pid: pid)
        }
    }

    /// Starts the app for its queued requests. `posix_spawn` runs under the lock: a launch is rare,
    /// and this keeps single flight trivially true.
    private func launch(_ bundleID: String, in state: inout State, _ effects: inout Effects) {
        guard var record = state.apps[bundleID], case .notRunning = record.phase, let first = record.queue.first else { return }
        if let until = record.blockedUntil, clock.now < until {
            let remaining = until - clock.now
            failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) failed \(record.failures) times in a row; Courier will not relaunch it for another \(remaining.formatted) (crash-loop back-off); fix the app or retry later"), in: &state, &effects)
            return
        }
        guard let arguments = record.descriptor.launchArguments else {
            failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) is not running and its manifest has no CourierLaunchArguments; start the app by other means (it checks in) or add the key"), in: &state, &effects)
            return
        }
        record.generation += 1
        let generation = record.generation
        var environment: [String: String] = [:]
        if let token = first.request.activationToken {
            environment["XDG_ACTIVATION_TOKEN"] = token
            environment["DESKTOP_STARTUP_ID"] = token
        }
        let spec = LaunchSpec(bundleID: bundleID, arguments: arguments, environment: environment)
        let pid: Int32
        observer?(.launching(bundleID: bundleID))
        let executor = configuration.taskExecutor
        do {
            // The exit notice comes from the reaper's thread, possibly at once: it re-enters
            // through a task, never under this lock.
            pid = try launcher.launch(spec) { pid, status in
                Task(executorPreference: executor) { self.processExited(bundleID, pid: pid, generation: generation, status: status) }
            }
        } catch {
            state.apps[bundleID] = record
            recordFailure(bundleID, in: &state)
            failQueue(bundleID, error, in: &state, &effects)
            return
        }
        let timeout = record.descriptor.launchTimeout
        let timer = Task(executorPreference: executor) {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.launchTimedOut(bundleID, generation: generation) }
        }
        let options = LaunchOptions(url: first.request.url, sourceApplication: first.request.sourceApplication, requestID: first.id, appOptions: first.request.appOptions)
        record.phase = .launching(pid: pid, generation: generation, options: options, timer: timer)
        state.apps[bundleID] = record
        logger.debug("launched \(bundleID)", metadata: ["pid": "\(pid)", "argv": "\(arguments)"])
    }

    private func processExited(_ bundleID: String, pid: Int32, generation: UInt64, status: ExitStatus) {
        change { state, effects in
            guard let record = state.apps[bundleID], record.generation == generation else { return }
            switch record.phase {
            case .launching(let launchedPid, _, _, let timer) where launchedPid == pid:
                timer.cancel()
                state.apps[bundleID]!.phase = .notRunning
                recordFailure(bundleID, in: &state)
                failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) (pid \(pid)) exited with \(status) before checking in; run its launch command by hand to see why"), in: &state, &effects)
            case .running(_, let launchedPid?, _) where launchedPid == pid:
                appGone(bundleID, reason: "exited with \(status)", in: &state, &effects)
            default:
                logger.debug("\(bundleID) pid \(pid) exited with \(status)")
            }
        }
    }

    private func launchTimedOut(_ bundleID: String, generation: UInt64) {
        change { state, effects in
            guard let record = state.apps[bundleID], record.generation == generation, case .launching(let pid, _, _, _) = record.phase else { return }
            state.apps[bundleID]!.phase = .notRunning
            launcher.terminate(pid: pid, grace: configuration.terminationGrace)
            recordFailure(bundleID, in: &state)
            failQueue(bundleID, BrokerError(.launchTimeout, "\(bundleID) (pid \(pid)) did not check in within \(record.descriptor.launchTimeout.formatted) and was terminated; an app must call CheckIn when it is ready (the Courier library does)"), in: &state, &effects)
        }
    }

    /// The app stopped (exit, left the bus, replaced): answer the request it was handling with an
    /// error and relaunch it for the requests still queued.
    private func appGone(_ bundleID: String, reason: String, relaunch: Bool = true, in state: inout State, _ effects: inout Effects) {
        guard var record = state.apps[bundleID] else { return }
        if case .launching(_, _, _, let timer) = record.phase { timer.cancel() }
        record.phase = .notRunning
        let inFlight = record.inFlight
        record.inFlight = nil
        state.apps[bundleID] = record
        logger.debug("\(bundleID) \(reason)")
        if let inFlight {
            recordFailure(bundleID, in: &state)
            effects.finished.append((inFlight, bundleID, .failure(BrokerError(.appFailed, "\(bundleID) \(reason) while handling \(inFlight.request.url); the next request relaunches it"))))
        }
        if relaunch { launch(bundleID, in: &state, &effects) }
    }

    /// Hands the app its next queued request, unless one is in flight or it is not running.
    private func startDelivery(_ bundleID: String, in state: inout State, _ effects: inout Effects) {
        let next = state.withRecord(bundleID) { record -> (Pending, Delivery, AppEndpoint, generation: UInt64)? in
            guard case .running(let uniqueName, _, let generation) = record.phase, record.inFlight == nil,
                  let pending = record.queue.popFirst() else { return nil }
            record.inFlight = pending
            let delivery = Delivery(
                requestID: pending.id, url: pending.request.url, sourceApplication: pending.request.sourceApplication,
                appOptions: pending.request.appOptions, isLaunchRequest: record.launchRequestID == pending.id,
                timeout: pending.request.deliveryTimeout
            )
            let endpoint = AppEndpoint(bundleID: bundleID, uniqueName: uniqueName, freedesktopApplication: record.descriptor.dbusActivatable)
            return (pending, delivery, endpoint, generation)
        }
        if let next { effects.deliveries.append(next) }
    }

    /// The app answered `pending` (or failed to): complete it and deliver the next request.
    /// Returns what that leaves to do.
    private func delivered(_ pending: Pending, bundleID: String, generation: UInt64, _ result: Result<DeliveryAnswer, BrokerError>) -> Effects {
        observer?(.delivered(bundleID: bundleID))
        return state.withLock { state in
            var effects = Effects()
            let stillRunning = state.withRecord(bundleID) { record -> Bool? in
                // Already answered when the app died meanwhile.
                guard record.inFlight?.id == pending.id else { return nil }
                record.inFlight = nil
                switch result {
                case .success(let answer):
                    record.failures = 0
                    record.blockedUntil = nil
                    effects.finished.append((pending, bundleID, .success(OpenOutcome(handled: answer.handled, bundleID: bundleID, reply: answer.reply, launched: pending.launched))))
                case .failure(let error):
                    effects.finished.append((pending, bundleID, .failure(error)))
                }
                if case .running(_, _, let current) = record.phase { return current == generation }
                return false
            }
            guard let stillRunning else { return effects }
            if case .failure(let error) = result, error.code == .appFailed { recordFailure(bundleID, in: &state) }
            if stillRunning { startDelivery(bundleID, in: &state, &effects) }
            return effects
        }
    }

    private func recordFailure(_ bundleID: String, in state: inout State) {
        guard var record = state.apps[bundleID] else { return }
        record.failures += 1
        if let delay = configuration.crashLoop.backoff(afterFailures: record.failures) {
            record.blockedUntil = clock.now + delay
            logger.warning("\(bundleID) failed \(record.failures) times in a row; no relaunch for \(delay.formatted)")
        }
        state.apps[bundleID] = record
    }

    private func failQueue(_ bundleID: String, _ error: BrokerError, in state: inout State, _ effects: inout Effects) {
        guard let queue = state.apps[bundleID]?.queue else { return }
        state.apps[bundleID]!.queue = []
        for pending in queue { effects.finished.append((pending, bundleID, .failure(error))) }
    }

    private func finish(_ pending: Pending, target: String, _ result: Result<OpenOutcome, BrokerError>) {
        report(pending.request, target: target, received: pending.received, launched: pending.launched, result)
        pending.completion(result)
    }

    /// The one info line per routing decision: scheme, caller, target, outcome, time.
    private func report(_ request: OpenRequest, target: String, received: ContinuousClock.Instant, launched: Bool, _ result: Result<OpenOutcome, BrokerError>) {
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
