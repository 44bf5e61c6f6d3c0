import CourierNames

/// The broker core's book-keeping as one value: every app's record, and the pure transitions that
/// turn an event (a request, a check-in, a spawn's result, an exit, an answer, a timer, a policy
/// sweep) into a new state and the effects left to perform (`DispatcherEffect`).
///
/// Nothing here takes a lock, spawns, delivers, logs or reads a clock: time comes in as `now`, and
/// everything else goes out as effects. `Dispatcher` holds this value behind its lock and performs
/// the effects after releasing it; tests drive it directly, event by event.
struct DispatcherState: Sendable {
    struct Policy: Sendable {
        /// Requests queued per app beyond which `LimitsExceeded` is answered.
        var maxQueuedPerApp: Int
        var crashLoop: CrashLoopPolicy
        /// When and how apps are terminated with notice.
        var termination: TerminationPolicy = .init()
        /// Between SIGTERM and SIGKILL.
        var terminationGrace: Duration = .seconds(2)
    }

    let policy: Policy
    private(set) var apps: [String: AppRecord] = [:]
    private var nextRequestID: UInt64 = 1

    init(policy: Policy) {
        self.policy = policy
    }

    /// The one way to change a record: `body` runs on the record of `bundleID` in place (one
    /// lookup, no copy), then the record reports its state if it changed. `nil` when the broker
    /// does not know the app.
    mutating func withRecord<R>(_ bundleID: String, _ effects: inout [DispatcherEffect], _ body: (inout AppRecord, inout [DispatcherEffect]) -> R) -> R? {
        guard let index = apps.index(forKey: bundleID) else { return nil }
        defer { apps.values[index].reportState(&effects) }
        return body(&apps.values[index], &effects)
    }

    /// The same, creating the record from `descriptor` when the app is new, and refreshing its
    /// descriptor (the manifest may have changed) when it is not.
    private mutating func withRecord<R>(_ descriptor: AppDescriptor, _ effects: inout [DispatcherEffect], _ body: (inout AppRecord, inout [DispatcherEffect]) -> R) -> R {
        func refreshed(_ record: inout AppRecord, _ effects: inout [DispatcherEffect]) -> R {
            record.descriptor = descriptor
            defer { record.reportState(&effects) }
            return body(&record, &effects)
        }
        return refreshed(&apps[descriptor.bundleID, default: AppRecord(descriptor: descriptor)], &effects)
    }

    // MARK: Events

    /// A request for the app `descriptor`: queued, and its launch or delivery started. `nil` when
    /// the app's queue is full (nothing changed; the caller answers `LimitsExceeded`).
    mutating func submit(_ request: OpenRequest, to descriptor: AppDescriptor, received: ContinuousClock.Instant, completion: @escaping Dispatcher.Completion, now: ContinuousClock.Instant) -> [DispatcherEffect]? {
        var request = request
        request.sourceApplication = caller(of: request)
        let id = nextRequestID
        let maxQueued = policy.maxQueuedPerApp
        var effects: [DispatcherEffect] = []
        let accepted = withRecord(descriptor, &effects) { record, effects -> Bool in
            record.assumeActivatable(now: now)
            guard record.queue.count < maxQueued else { return false }
            let deadline = request.deliveryTimeout.map { received + $0 }
            record.enqueue(PendingRequest(id: id, request: request, received: received, completion: completion, launched: !record.isRunning, deadline: deadline), now: now, &effects)
            return true
        }
        guard accepted else { return nil }
        nextRequestID += 1
        return effects
    }

    /// The app `descriptor` checked in from `uniqueName`; `process`, the verified process when the
    /// broker did not launch it.
    mutating func checkIn(_ descriptor: AppDescriptor, uniqueName: String, process: ProcessHandle? = nil, now: ContinuousClock.Instant) -> Result<(LaunchOptions, [DispatcherEffect]), CourierError> {
        let crashLoop = policy.crashLoop
        var effects: [DispatcherEffect] = []
        return withRecord(descriptor, &effects) { record, effects in
            record.checkIn(uniqueName: uniqueName, process: process, now: now, crashLoop: crashLoop, &effects)
        }.map { ($0, effects) }
    }

    mutating func spawned(_ bundleID: String, pid: Int32, generation: UInt64) -> [DispatcherEffect] {
        change(bundleID) { record, effects, _ in record.spawned(pid: pid, generation: generation, &effects) }
    }

    mutating func spawnFailed(_ bundleID: String, _ error: CourierError, generation: UInt64, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        change(bundleID) { record, effects, crashLoop in record.spawnFailed(error, generation: generation, now: now, crashLoop: crashLoop, &effects) }
    }

    mutating func processExited(_ bundleID: String, pid: Int32, generation: UInt64, status: ExitStatus, reason: CourierError? = nil, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        change(bundleID) { record, effects, crashLoop in record.processExited(pid: pid, generation: generation, status: status, reason: reason, now: now, crashLoop: crashLoop, &effects) }
    }

    mutating func timerFired(_ timer: DispatcherTimer, _ bundleID: String, generation: UInt64, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        let grace = policy.terminationGrace
        return change(bundleID) { record, effects, crashLoop in
            switch timer {
            case .launch: record.launchTimedOut(generation: generation, now: now, crashLoop: crashLoop, &effects)
            case .terminationDeadline: record.terminationDeadlinePassed(generation: generation, grace: grace, &effects)
            case .idleReport: record.idleReportDue(&effects)
            case .requestDeadline: record.requestDeadlinesDue(now: now, &effects)
            case .keepAlive: record.keepAliveDue(generation: generation, now: now, &effects)
            }
        }
    }

    mutating func delivered(_ bundleID: String, requestID: UInt64, generation: UInt64, _ result: Result<DeliveryAnswer, CourierError>, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        change(bundleID) { record, effects, crashLoop in record.delivered(requestID, generation: generation, result, now: now, crashLoop: crashLoop, &effects) }
    }

    /// A unique bus name left the bus: the app that checked in from it is gone, and the requests
    /// it had queued as a caller are withdrawn.
    mutating func busNameVanished(_ uniqueName: String, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        var effects: [DispatcherEffect] = []
        for index in apps.indices {
            if apps.values[index].uniqueName == uniqueName {
                apps.values[index].gone(reason: "left the bus", now: now, crashLoop: policy.crashLoop, &effects)
            } else if !apps.values[index].queue.isEmpty {
                apps.values[index].callerVanished(uniqueName, &effects)
            } else {
                continue
            }
            apps.values[index].reportState(&effects)
        }
        return effects
    }

    /// `uniqueName` released the bus name `bundleID` while staying connected: if that was the
    /// checked-in app, it is gone.
    mutating func bundleNameReleased(_ bundleID: String, by uniqueName: String, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        change(bundleID) { record, effects, crashLoop in
            if record.uniqueName == uniqueName { record.gone(reason: "released its bus name", now: now, crashLoop: crashLoop, &effects) }
        }
    }

    // MARK: Termination

    /// Terminates `bundleID` with notice (`courier quit`, a policy).
    mutating func terminate(_ bundleID: String, reason: String) -> Result<[DispatcherEffect], CourierError> {
        var effects: [DispatcherEffect] = []
        let deadline = policy.termination.noticeDeadline
        let result = withRecord(bundleID, &effects) { $0.terminate(reason: reason, deadline: deadline, &$1) }
            ?? .failure(CourierError(.notRunning, "\(bundleID) has not run since the broker started; nothing to quit"))
        return result.map { effects }
    }

    /// Kills `bundleID` without notice (`courier quit --force`).
    mutating func kill(_ bundleID: String, by who: String) -> Result<[DispatcherEffect], CourierError> {
        var effects: [DispatcherEffect] = []
        let result = withRecord(bundleID, &effects) { $0.kill(by: who, &$1) }
            ?? .failure(CourierError(.notRunning, "\(bundleID) has not run since the broker started; nothing to quit"))
        return result.map { effects }
    }

    /// Starts `descriptor` without a URL (`courier launch`, run-at-load); `waiter` learns when it
    /// runs.
    mutating func start(_ descriptor: AppDescriptor, _ order: LaunchOrder, waiter: AppRecord.LaunchWaiter?, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        var effects: [DispatcherEffect] = []
        withRecord(descriptor, &effects) { $0.start(order, waiter: waiter, now: now, &$1) }
        return effects
    }

    /// Ends `descriptor`'s instance with notice and starts a new one (`courier restart`).
    mutating func restart(_ descriptor: AppDescriptor, _ order: LaunchOrder, waiter: AppRecord.LaunchWaiter?, now: ContinuousClock.Instant) -> [DispatcherEffect] {
        var effects: [DispatcherEffect] = []
        let deadline = policy.termination.noticeDeadline
        withRecord(descriptor, &effects) { $0.restart(order, waiter: waiter, deadline: deadline, now: now, &$1) }
        return effects
    }

    /// The last lines of process `pid`'s log, read for its end.
    mutating func logRead(_ bundleID: String, pid: Int32, lines: [String]) {
        var effects: [DispatcherEffect] = []
        withRecord(bundleID, &effects) { record, _ in record.logRead(pid: pid, lines: lines) }
    }

    /// The app of `generation` answered `WillTerminate` (or the call failed).
    mutating func noticeAnswered(_ bundleID: String, generation: UInt64) -> [DispatcherEffect] {
        let grace = policy.terminationGrace
        return change(bundleID) { record, effects, _ in record.noticeEnded(generation: generation, answered: true, grace: grace, &effects) }
    }

    /// The termination policies, applied at `now`: every app idle longer than the idle timeout is
    /// terminated, and `underPressure`, the least recently used idle app too. Only idle apps whose
    /// process the broker can signal (it launched it, or holds the verified process it adopted)
    /// and whose manifest does not opt out (`CourierTerminatesWhenIdle` false) or ask to be kept
    /// running (`CourierKeepAlive`, `CourierRunAtLoad`) are candidates.
    mutating func reclaim(now: ContinuousClock.Instant, underPressure: Bool) -> [DispatcherEffect] {
        var effects: [DispatcherEffect] = []
        var leastRecent: (index: Dictionary<String, AppRecord>.Index, since: ContinuousClock.Instant)?
        for index in apps.indices {
            let record = apps.values[index]
            guard !record.exemptFromReclaim, record.pid != nil,
                  case .idle = record.publicState, let since = record.lastActive else { continue }
            if let timeout = policy.termination.idleTimeout, now - since >= timeout {
                _ = apps.values[index].terminate(reason: "idle for \((now - since).formatted) (idle timeout \(timeout.formatted))", deadline: policy.termination.noticeDeadline, &effects)
                apps.values[index].reportState(&effects)
            } else if underPressure, since < (leastRecent?.since ?? now + .seconds(1)) {
                leastRecent = (index, since)
            }
        }
        if let leastRecent {
            _ = apps.values[leastRecent.index].terminate(reason: "memory pressure; least recently used idle app (idle for \((now - leastRecent.since).formatted))", deadline: policy.termination.noticeDeadline, &effects)
            apps.values[leastRecent.index].reportState(&effects)
        }
        return effects
    }

    // MARK: Queries

    /// The bundle id the request comes from, as the app will be told and its caller rules see it:
    /// derived from `callerIdentity` when the adapter passed one, "" for a relayed request.
    func caller(of request: OpenRequest) -> String {
        if request.options.relayed { return "" }
        guard let identity = request.callerIdentity else { return request.sourceApplication }
        return sourceApplication(uniqueName: identity.uniqueName, pid: identity.pid)
    }

    /// nil when the caller of `request` may reach `descriptor` (its `CallerPolicy`), else the
    /// refusal. Checked before the request is queued, so a refused caller wakes nothing.
    func callerRefusal(_ request: OpenRequest, to descriptor: AppDescriptor) -> CourierError? {
        if request.options.arguments != nil || request.options.fresh {
            // Arguments change how the app starts: the user's to give (the shell), not another app's.
            let source = caller(of: request)
            if !source.isEmpty, source != descriptor.bundleID {
                return CourierError(.notPermitted, "\(source) may not pass launch arguments or --fresh to \(descriptor.bundleID): only the user's tools (courier open --args) do; send the URL without them")
            }
        }
        let policy = descriptor.callers
        guard !policy.admitsAnyone else { return nil }
        let door: CallerPolicy.Door = request.facts.droppedFile ? .drop : .url(scheme: String(request.url.prefix { $0 != ":" }).lowercased())
        let caller = CallerPolicy.Caller(sourceApplication: caller(of: request), uniqueName: request.callerIdentity?.uniqueName ?? request.caller, pid: request.callerIdentity?.pid)
        return policy.refusal(of: caller, at: door, app: descriptor.bundleID)
    }

    /// The bundle id of the app behind a caller, from what the broker itself knows: the unique name
    /// that checked in, or the pid of a process Courier launched or holds (while that very
    /// process runs). "" when the caller is not a known app.
    func sourceApplication(uniqueName: String, pid: Int32?) -> String {
        for (bundleID, record) in apps {
            if record.uniqueName == uniqueName { return bundleID }
            if let pid, record.pid == pid, record.heldProcess?.isRunning ?? true { return bundleID }
        }
        return ""
    }

    // MARK: Helpers

    private mutating func change(_ bundleID: String, _ body: (inout AppRecord, inout [DispatcherEffect], CrashLoopPolicy) -> Void) -> [DispatcherEffect] {
        var effects: [DispatcherEffect] = []
        let crashLoop = policy.crashLoop
        withRecord(bundleID, &effects) { body(&$0, &$1, crashLoop) }
        return effects
    }
}
