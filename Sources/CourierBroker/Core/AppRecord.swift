import DequeModule

/// What the broker knows about one app, and the transitions that change it.
///
/// A record only changes through its own `mutating` methods, called on the record in place
/// (`DispatcherState.withRecord`): no copy is taken out and put back (a copy shares the queue's
/// storage, and changing the queue would then copy it whole), and no field is reached through a
/// force-unwrapped dictionary lookup. Every method appends what is left to do to `effects`.
struct AppRecord: Sendable {
    enum Phase: Sendable {
        case notRunning
        /// Spawned (or being spawned) by the broker for `options`' request; `pid` once the spawn
        /// returned. The pid is what receiver verification compares a `CheckIn` with.
        case launching(pid: Int32?, options: LaunchOptions)
        /// Checked in from `uniqueName`; `pid` when the broker launched this process.
        case running(uniqueName: String, pid: Int32?)
    }

    var descriptor: AppDescriptor
    var phase: Phase = .notRunning
    var queue: Deque<PendingRequest> = []
    /// The request being delivered; its answer starts the next delivery.
    var inFlight: PendingRequest?
    /// Bumped at every launch and at a check-in the broker did not launch for, so late events of an
    /// earlier process (its exit, its launch timer, a delivery's answer) are recognised and ignored.
    var generation: UInt64 = 0
    var launchRequestID: UInt64?
    var failures = 0
    var blockedUntil: ContinuousClock.Instant?

    init(descriptor: AppDescriptor) {
        self.descriptor = descriptor
    }

    var bundleID: String { descriptor.bundleID }

    /// The pid of the process the broker launched for the current generation, if known.
    var launchedPID: Int32? {
        switch phase {
        case .notRunning: nil
        case .launching(let pid, _), .running(_, let pid): pid
        }
    }

    var uniqueName: String? {
        if case .running(let name, _) = phase { return name }
        return nil
    }

    var publicState: AppState {
        switch phase {
        case .notRunning: .notRunning
        case .launching(let pid, _): .launching(pid: pid)
        case .running(let name, let pid): .running(uniqueName: name, pid: pid)
        }
    }

    // MARK: Transitions

    /// Starts the app for its queued requests, unless it is already starting or running, or the
    /// crash-loop back-off or a missing launch command forbids it (then the queue is answered).
    mutating func launch(now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        guard case .notRunning = phase, let first = queue.first else { return }
        if let until = blockedUntil, now < until {
            failQueue(BrokerError(.launchFailed, "\(bundleID) failed \(failures) times in a row; Courier will not relaunch it for another \((until - now).formatted) (crash-loop back-off); fix the app or retry later"), &effects)
            return
        }
        guard let arguments = descriptor.launchArguments else {
            failQueue(BrokerError(.launchFailed, "\(bundleID) is not running and its manifest has no CourierLaunchArguments; start the app by other means (it checks in) or add the key"), &effects)
            return
        }
        generation += 1
        var environment: [String: String] = [:]
        if let token = first.request.activationToken {
            environment["XDG_ACTIVATION_TOKEN"] = token
            environment["DESKTOP_STARTUP_ID"] = token
        }
        let options = LaunchOptions(url: first.request.url, sourceApplication: first.request.sourceApplication, requestID: first.id, appOptions: first.request.appOptions)
        phase = .launching(pid: nil, options: options)
        effects.append(.event(.launching(bundleID: bundleID)))
        effects.append(.spawn(LaunchSpec(bundleID: bundleID, arguments: arguments, environment: environment), generation: generation))
    }

    /// The spawn of `generation` returned `pid`.
    mutating func spawned(pid: Int32, generation: UInt64, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation else { return }
        switch phase {
        case .launching(_, let options):
            phase = .launching(pid: pid, options: options)
            effects.append(.startLaunchTimer(bundleID: bundleID, generation: generation, timeout: descriptor.launchTimeout))
            effects.append(.log(.debug, "launched \(bundleID) pid=\(pid) argv=\(descriptor.launchArguments ?? [])"))
        case .running(let name, nil):
            // It checked in before the spawn returned (possible: the spawn is outside the lock).
            phase = .running(uniqueName: name, pid: pid)
        case .running, .notRunning:
            break
        }
    }

    /// The spawn of `generation` failed.
    mutating func spawnFailed(_ error: BrokerError, generation: UInt64, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation, case .launching = phase else { return }
        phase = .notRunning
        recordFailure(now: now, crashLoop: crashLoop, &effects)
        failQueue(error, &effects)
    }

    /// The app says it is ready from `uniqueName`. Returns the launch options, or why not.
    mutating func checkIn(uniqueName: String, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) -> Result<LaunchOptions, BrokerError> {
        if case .running(uniqueName, _) = phase {
            return .failure(BrokerError(.notPermitted, "\(bundleID) already checked in from \(uniqueName); call CheckIn once per process"))
        }
        effects.append(.event(.checkedIn(bundleID: bundleID)))
        let options: LaunchOptions
        switch phase {
        case .launching(let pid, let launchOptions):
            effects.append(.stopLaunchTimer(bundleID: bundleID, generation: generation))
            phase = .running(uniqueName: uniqueName, pid: pid)
            launchRequestID = launchOptions.requestID
            options = launchOptions
        case .notRunning:
            generation += 1
            phase = .running(uniqueName: uniqueName, pid: nil)
            options = .none
        case .running:
            gone(reason: "was replaced by \(uniqueName)", relaunch: false, now: now, crashLoop: crashLoop, &effects)
            generation += 1
            phase = .running(uniqueName: uniqueName, pid: nil)
            options = .none
        }
        effects.append(.log(.debug, "\(bundleID) checked in name=\(uniqueName) launch-url=\(options.url ?? "")"))
        startDelivery(&effects)
        return .success(options)
    }

    /// A foreign `org.freedesktop.Application` never checks in: it is reachable at its well-known
    /// name, which the bus activates on the first call (single flight there).
    mutating func assumeActivatable() {
        guard descriptor.dbusActivatable, case .notRunning = phase else { return }
        generation += 1
        phase = .running(uniqueName: bundleID, pid: nil)
    }

    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// Queues one request and starts its launch or delivery.
    mutating func enqueue(_ pending: PendingRequest, now: ContinuousClock.Instant, _ effects: inout [DispatcherEffect]) {
        queue.append(pending)
        switch phase {
        case .running: startDelivery(&effects)
        case .launching: effects.append(.log(.debug, "queued behind the launch of \(bundleID) request=\(pending.id)"))
        case .notRunning: launch(now: now, &effects)
        }
    }

    /// The process of `generation` exited with `status`.
    mutating func processExited(pid: Int32, generation: UInt64, status: ExitStatus, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        guard generation == self.generation else { return }
        switch phase {
        case .launching:
            effects.append(.stopLaunchTimer(bundleID: bundleID, generation: generation))
            phase = .notRunning
            recordFailure(now: now, crashLoop: crashLoop, &effects)
            failQueue(BrokerError(.launchFailed, "\(bundleID) (pid \(pid)) \(status.ending) before checking in; `courier log \(bundleID)` shows what it printed"), &effects)
        case .running:
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
        recordFailure(now: now, crashLoop: crashLoop, &effects)
        failQueue(BrokerError(.launchTimeout, "\(bundleID) (pid \(pid)) did not check in within \(descriptor.launchTimeout.formatted) and was terminated; an app must call CheckIn when it is ready (the Courier library does)"), &effects)
    }

    /// The app stopped (exit, left the bus, replaced): answer the request it was handling with an
    /// error and relaunch it for the requests still queued.
    mutating func gone(reason: String, relaunch: Bool = true, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        if case .launching = phase { effects.append(.stopLaunchTimer(bundleID: bundleID, generation: generation)) }
        phase = .notRunning
        effects.append(.log(.debug, "\(bundleID) \(reason)"))
        if let pending = inFlight {
            inFlight = nil
            recordFailure(now: now, crashLoop: crashLoop, &effects)
            effects.append(.finish(pending, target: bundleID, .failure(BrokerError(.appFailed, "\(bundleID) \(reason) while handling \(pending.request.url); the next request relaunches it"))))
        }
        if relaunch { launch(now: now, &effects) }
    }

    /// Hands the app its next queued request, unless one is in flight or it is not running.
    mutating func startDelivery(_ effects: inout [DispatcherEffect]) {
        guard case .running(let uniqueName, _) = phase, inFlight == nil, let pending = queue.popFirst() else { return }
        inFlight = pending
        let delivery = Delivery(
            requestID: pending.id, url: pending.request.url, sourceApplication: pending.request.sourceApplication,
            appOptions: pending.request.appOptions, isLaunchRequest: launchRequestID == pending.id,
            timeout: pending.request.deliveryTimeout
        )
        let endpoint = AppEndpoint(bundleID: bundleID, uniqueName: uniqueName, freedesktopApplication: descriptor.dbusActivatable)
        effects.append(.deliver(pending, delivery, endpoint, generation: generation))
    }

    /// The app answered request `id` of `generation` (or failed to): complete it, deliver the next.
    mutating func delivered(_ id: UInt64, generation: UInt64, _ result: Result<DeliveryAnswer, BrokerError>, now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        // Already answered when the app died meanwhile.
        guard let pending = inFlight, pending.id == id else { return }
        inFlight = nil
        switch result {
        case .success(let answer):
            failures = 0
            blockedUntil = nil
            effects.append(.finish(pending, target: bundleID, .success(OpenOutcome(handled: answer.handled, bundleID: bundleID, reply: answer.reply, launched: pending.launched))))
        case .failure(let error):
            effects.append(.finish(pending, target: bundleID, .failure(error)))
            if error.code == .appFailed { recordFailure(now: now, crashLoop: crashLoop, &effects) }
        }
        if generation == self.generation { startDelivery(&effects) }
    }

    private mutating func recordFailure(now: ContinuousClock.Instant, crashLoop: CrashLoopPolicy, _ effects: inout [DispatcherEffect]) {
        failures += 1
        if let delay = crashLoop.backoff(afterFailures: failures) {
            blockedUntil = now + delay
            effects.append(.log(.warning, "\(bundleID) failed \(failures) times in a row; no relaunch for \(delay.formatted)"))
        }
    }

    private mutating func failQueue(_ error: BrokerError, _ effects: inout [DispatcherEffect]) {
        while let pending = queue.popFirst() {
            effects.append(.finish(pending, target: bundleID, .failure(error)))
        }
    }
}
