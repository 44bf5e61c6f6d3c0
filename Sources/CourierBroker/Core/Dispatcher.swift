public import Logging

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
/// - Apps are independent: each has its own queue and delivery loop, so a slow app delays only
///   its own requests.
///
/// `submit` is synchronous on the actor and returns as soon as the request is queued: an adapter
/// that must keep the bus's message order calls it from one serial loop, in arrival order.
public actor Dispatcher {
    public struct Configuration: Sendable {
        /// Between SIGTERM and SIGKILL when a stray process is terminated.
        public var terminationGrace: Duration
        /// Requests queued per app beyond which `LimitsExceeded` is answered.
        public var maxQueuedPerApp: Int
        public var crashLoop: CrashLoopPolicy
        /// Where the dispatcher's own tasks (delivery loops, launch timers) prefer to run. The D-Bus
        /// adapter passes its connection's I/O thread: the actor then runs there too (SE-0417), and
        /// a request crosses no thread between the socket and the app.
        public var taskExecutor: (any TaskExecutor)?

        public init(terminationGrace: Duration = .seconds(2), maxQueuedPerApp: Int = 4096, crashLoop: CrashLoopPolicy = .init(), taskExecutor: (any TaskExecutor)? = nil) {
            self.terminationGrace = terminationGrace
            self.maxQueuedPerApp = maxQueuedPerApp
            self.crashLoop = crashLoop
            self.taskExecutor = taskExecutor
        }
    }

    public typealias Completion = @Sendable (Result<OpenOutcome, BrokerError>) -> Void

    private struct Pending {
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
        var queue: [Pending] = []
        var inFlight: Pending?
        /// The generation whose delivery loop is running, if any.
        var pumpGeneration: UInt64?
        /// Bumped at every launch and check-in, so late events of an earlier process are ignored.
        var generation: UInt64 = 0
        var launchRequestID: UInt64?
        var failures = 0
        var blockedUntil: ContinuousClock.Instant?
    }

    private let resolver: any HandlerResolver
    private let launcher: any Launcher
    private let deliverer: any Deliverer
    private let configuration: Configuration
    private let logger: Logger
    private let observer: (@Sendable (DispatcherEvent) -> Void)?
    private let clock = ContinuousClock()
    private var apps: [String: Record] = [:]
    private var nextRequestID: UInt64 = 1

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

    /// Queues `request` and returns at once; `completion` is called exactly once with the outcome.
    public func submit(_ request: OpenRequest, completion: @escaping Completion) {
        var request = request
        if let identity = request.callerIdentity {
            request.sourceApplication = sourceApplication(uniqueName: identity.uniqueName, pid: identity.pid)
        }
        let id = nextRequestID
        nextRequestID += 1
        let received = clock.now
        let descriptor: AppDescriptor
        do {
            descriptor = try resolver.resolve(url: request.url, bundleID: request.bundleID)
        } catch {
            report(request, target: request.bundleID ?? "-", received: received, launched: false, .failure(error))
            completion(.failure(error))
            return
        }
        let bundleID = descriptor.bundleID
        var record = apps[bundleID] ?? Record(descriptor: descriptor)
        record.descriptor = descriptor
        if descriptor.dbusActivatable, case .notRunning = record.phase {
            // A foreign org.freedesktop.Application never checks in: it is reachable at its
            // well-known name, which the bus activates on the first call (single flight there).
            record.generation += 1
            record.phase = .running(uniqueName: bundleID, pid: nil, generation: record.generation)
        }
        guard record.queue.count < configuration.maxQueuedPerApp else {
            let error = BrokerError(.limitsExceeded, "\(bundleID) already has \(record.queue.count) requests waiting; retry when it has caught up")
            report(request, target: bundleID, received: received, launched: false, .failure(error))
            completion(.failure(error))
            return
        }
        var isRunning = false
        if case .running = record.phase { isRunning = true }
        record.queue.append(Pending(id: id, request: request, received: received, completion: completion, launched: !isRunning))
        apps[bundleID] = record
        switch record.phase {
        case .running: startPump(bundleID)
        case .launching: logger.debug("queued behind the launch of \(bundleID)", metadata: ["request": "\(id)"])
        case .notRunning: launch(bundleID)
        }
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
        guard let descriptor = apps[bundleID]?.descriptor ?? resolver.descriptor(bundleID: bundleID) else {
            throw BrokerError(.notPermitted, "no manifest is registered for \(bundleID); register it (courier register) before checking in")
        }
        if apps[bundleID] == nil { apps[bundleID] = Record(descriptor: descriptor) }
        observer?(.checkedIn(bundleID: bundleID))
        let options: LaunchOptions
        switch apps[bundleID]!.phase {
        case .launching(let pid, let generation, let launchOptions, let timer):
            timer.cancel()
            apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: pid, generation: generation)
            apps[bundleID]!.launchRequestID = launchOptions.requestID
            options = launchOptions
        case .notRunning:
            apps[bundleID]!.generation += 1
            apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: nil, generation: apps[bundleID]!.generation)
            options = .none
        case .running(let current, _, _):
            if current == uniqueName {
                throw BrokerError(.notPermitted, "\(bundleID) already checked in from \(uniqueName); call CheckIn once per process")
            }
            appGone(bundleID, reason: "was replaced by \(uniqueName)", relaunch: false)
            apps[bundleID]!.generation += 1
            apps[bundleID]!.phase = .running(uniqueName: uniqueName, pid: nil, generation: apps[bundleID]!.generation)
            options = .none
        }
        logger.debug("\(bundleID) checked in", metadata: ["name": "\(uniqueName)", "launch-url": "\(options.url ?? "")"])
        startPump(bundleID)
        return options
    }

    /// A unique bus name left the bus (`NameOwnerChanged`): the app it belonged to is gone.
    public func busNameVanished(_ uniqueName: String) {
        for (bundleID, record) in apps {
            if case .running(let name, _, _) = record.phase, name == uniqueName {
                appGone(bundleID, reason: "left the bus")
            }
        }
    }

    /// `uniqueName` released the bus name `bundleID` while staying connected: if that was the
    /// checked-in app, it is gone.
    public func bundleNameReleased(_ bundleID: String, by uniqueName: String) {
        if case .running(let name, _, _)? = apps[bundleID]?.phase, name == uniqueName {
            appGone(bundleID, reason: "released its bus name")
        }
    }

    /// The bundle id of the app behind a caller, from what the broker itself knows: the unique name
    /// that checked in, or a pid Courier launched. "" when the caller is not a known app.
    public func sourceApplication(uniqueName: String, pid: Int32?) -> String {
        for (bundleID, record) in apps {
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

    /// The state of one app.
    public func state(of bundleID: String) -> AppState {
        guard let record = apps[bundleID] else { return .notRunning }
        return Self.publicState(record.phase)
    }

    /// Every app the broker has dealt with since it started.
    public func statuses() -> [AppStatus] {
        apps.map { AppStatus(bundleID: $0.key, state: Self.publicState($0.value.phase), queued: $0.value.queue.count + ($0.value.inFlight == nil ? 0 : 1), consecutiveFailures: $0.value.failures) }
            .sorted { $0.bundleID < $1.bundleID }
    }

    // MARK: Internals

    private static func publicState(_ phase: Phase) -> AppState {
        switch phase {
        case .notRunning: .notRunning
        case .launching(let pid, _, _, _): .launching(pid: pid)
        case .running(let name, let pid, _): .running(uniqueName: name, pid: pid)
        }
    }

    private func launch(_ bundleID: String) {
        guard var record = apps[bundleID], case .notRunning = record.phase, let first = record.queue.first else { return }
        if let until = record.blockedUntil, clock.now < until {
            let remaining = until - clock.now
            failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) failed \(record.failures) times in a row; Courier will not relaunch it for another \(remaining.formatted) (crash-loop back-off); fix the app or retry later"))
            return
        }
        guard let arguments = record.descriptor.launchArguments else {
            failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) is not running and its manifest has no CourierLaunchArguments; start the app by other means (it checks in) or add the key"))
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
        do {
            let executor = configuration.taskExecutor
            pid = try launcher.launch(spec) { pid, status in
                Task(executorPreference: executor) { await self.processExited(bundleID, pid: pid, generation: generation, status: status) }
            }
        } catch {
            apps[bundleID] = record
            recordFailure(bundleID)
            failQueue(bundleID, error)
            return
        }
        let timeout = record.descriptor.launchTimeout
        let timer = Task(executorPreference: configuration.taskExecutor) {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { await self.launchTimedOut(bundleID, generation: generation) }
        }
        let options = LaunchOptions(url: first.request.url, sourceApplication: first.request.sourceApplication, requestID: first.id, appOptions: first.request.appOptions)
        record.phase = .launching(pid: pid, generation: generation, options: options, timer: timer)
        apps[bundleID] = record
        logger.debug("launched \(bundleID)", metadata: ["pid": "\(pid)", "argv": "\(arguments)"])
    }

    private func processExited(_ bundleID: String, pid: Int32, generation: UInt64, status: ExitStatus) {
        guard let record = apps[bundleID], record.generation == generation else { return }
        switch record.phase {
        case .launching(let launchedPid, _, _, let timer) where launchedPid == pid:
            timer.cancel()
            apps[bundleID]!.phase = .notRunning
            recordFailure(bundleID)
            failQueue(bundleID, BrokerError(.launchFailed, "\(bundleID) (pid \(pid)) exited with \(status) before checking in; run its launch command by hand to see why"))
        case .running(_, let launchedPid?, _) where launchedPid == pid:
            appGone(bundleID, reason: "exited with \(status)")
        default:
            logger.debug("\(bundleID) pid \(pid) exited with \(status)")
        }
    }

    private func launchTimedOut(_ bundleID: String, generation: UInt64) {
        guard let record = apps[bundleID], record.generation == generation, case .launching(let pid, _, _, _) = record.phase else { return }
        apps[bundleID]!.phase = .notRunning
        launcher.terminate(pid: pid, grace: configuration.terminationGrace)
        recordFailure(bundleID)
        failQueue(bundleID, BrokerError(.launchTimeout, "\(bundleID) (pid \(pid)) did not check in within \(record.descriptor.launchTimeout.formatted) and was terminated; an app must call CheckIn when it is ready (the Courier library does)"))
    }

    /// The app stopped (exit, left the bus, replaced): answer the request it was handling with an
    /// error and relaunch it for the requests still queued.
    private func appGone(_ bundleID: String, reason: String, relaunch: Bool = true) {
        guard var record = apps[bundleID] else { return }
        if case .launching(_, _, _, let timer) = record.phase { timer.cancel() }
        record.phase = .notRunning
        record.pumpGeneration = nil
        let inFlight = record.inFlight
        record.inFlight = nil
        apps[bundleID] = record
        logger.debug("\(bundleID) \(reason)")
        if let inFlight {
            recordFailure(bundleID)
            finish(inFlight, target: bundleID, .failure(BrokerError(.appFailed, "\(bundleID) \(reason) while handling \(inFlight.request.url); the next request relaunches it")))
        }
        if relaunch { launch(bundleID) }
    }

    private func startPump(_ bundleID: String) {
        guard var record = apps[bundleID], case .running(_, _, let generation) = record.phase,
              record.pumpGeneration != generation, !record.queue.isEmpty else { return }
        record.pumpGeneration = generation
        apps[bundleID] = record
        Task(executorPreference: configuration.taskExecutor) { await self.pump(bundleID, generation: generation) }
    }

    /// The delivery loop of one app process: one request at a time, in queue order.
    private func pump(_ bundleID: String, generation: UInt64) async {
        while true {
            guard var record = apps[bundleID], case .running(let uniqueName, _, let current) = record.phase,
                  current == generation, record.pumpGeneration == generation else { return }
            guard !record.queue.isEmpty else {
                apps[bundleID]!.pumpGeneration = nil
                return
            }
            let pending = record.queue.removeFirst()
            record.inFlight = pending
            let delivery = Delivery(
                requestID: pending.id, url: pending.request.url, sourceApplication: pending.request.sourceApplication,
                appOptions: pending.request.appOptions, isLaunchRequest: record.launchRequestID == pending.id,
                timeout: pending.request.deliveryTimeout
            )
            apps[bundleID] = record
            let result: Result<DeliveryAnswer, BrokerError>
            do {
                let endpoint = AppEndpoint(bundleID: bundleID, uniqueName: uniqueName, freedesktopApplication: record.descriptor.dbusActivatable)
                observer?(.delivering(bundleID: bundleID))
                result = .success(try await deliverer.deliver(delivery, to: endpoint))
            } catch {
                result = .failure(error)
            }
            observer?(.delivered(bundleID: bundleID))
            // Already answered when the app died meanwhile.
            guard apps[bundleID]?.inFlight?.id == pending.id else { continue }
            apps[bundleID]!.inFlight = nil
            switch result {
            case .success(let answer):
                apps[bundleID]!.failures = 0
                apps[bundleID]!.blockedUntil = nil
                finish(pending, target: bundleID, .success(OpenOutcome(handled: answer.handled, bundleID: bundleID, reply: answer.reply, launched: pending.launched)))
            case .failure(let error):
                if error.code == .appFailed { recordFailure(bundleID) }
                finish(pending, target: bundleID, .failure(error))
            }
        }
    }

    private func recordFailure(_ bundleID: String) {
        guard var record = apps[bundleID] else { return }
        record.failures += 1
        if let delay = configuration.crashLoop.backoff(afterFailures: record.failures) {
            record.blockedUntil = clock.now + delay
            logger.warning("\(bundleID) failed \(record.failures) times in a row; no relaunch for \(delay.formatted)")
        }
        apps[bundleID] = record
    }

    private func failQueue(_ bundleID: String, _ error: BrokerError) {
        guard let queue = apps[bundleID]?.queue else { return }
        apps[bundleID]!.queue = []
        for pending in queue { finish(pending, target: bundleID, .failure(error)) }
    }

    private func finish(_ pending: Pending, target: String, _ result: Result<OpenOutcome, BrokerError>) {
        report(pending.request, target: target, received: pending.received, launched: pending.launched, result)
        pending.completion(result)
    }

    /// The one info line per routing decision: scheme, caller, target, outcome, time.
    private func report(_ request: OpenRequest, target: String, received: ContinuousClock.Instant, launched: Bool, _ result: Result<OpenOutcome, BrokerError>) {
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
