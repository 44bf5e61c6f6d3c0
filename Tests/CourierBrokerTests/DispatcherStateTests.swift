@testable import CourierBroker
import CourierNames
import Glibc
import Testing

/// The dispatcher's pure transitions, event by event: no lock, no process, no bus, no clock.
@Suite("DispatcherState")
struct DispatcherStateTests {
    let app = AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/usr/bin/todolist"], launchTimeout: .seconds(5))
    let t0 = ContinuousClock.now

    func makeState(threshold: Int = 3, idleTimeout: Duration? = nil) -> DispatcherState {
        DispatcherState(policy: .init(
            maxQueuedPerApp: 3, crashLoop: .init(threshold: threshold, baseDelay: .seconds(30)),
            termination: .init(idleTimeout: idleTimeout, noticeDeadline: .seconds(5))
        ))
    }

    func submit(_ state: inout DispatcherState, _ url: String, at now: ContinuousClock.Instant? = nil) -> [DispatcherEffect]? {
        state.submit(OpenRequest(url: url), to: app, received: now ?? t0, completion: { _ in }, now: now ?? t0)
    }

    @Test func aColdRequestSpawnsOnceAndWaitsForCheckIn() throws {
        var state = makeState()
        let first = try #require(submit(&state, "todo://a"))
        #expect(first.spawns.map(\.generation) == [1])
        #expect(first.spawns.first?.spec.arguments == ["/usr/bin/todolist"])
        // Single flight: a second request queues behind the launch.
        #expect(try #require(submit(&state, "todo://b")).spawns.isEmpty)
        #expect(state.apps["com.acme.todolist"]?.publicState == .launching(pid: nil))

        let spawned = state.spawned("com.acme.todolist", pid: 42, generation: 1)
        #expect(spawned.timers == [1])
        #expect(state.apps["com.acme.todolist"]?.pid == 42)

        let (options, effects) = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(options.url == "todo://a" && options.requestID == 1)
        #expect(effects.deliveries.map(\.url) == ["todo://a"])
        #expect(effects.deliveries.first?.isLaunchRequest == true)
        #expect(state.apps["com.acme.todolist"]?.publicState == .active(uniqueName: ":1.5", pid: 42))
    }

    @Test func deliveriesGoOneAtATimeInArrivalOrder() throws {
        var state = runningState()
        let a = try #require(submit(&state, "todo://a"))
        #expect(a.deliveries.map(\.url) == ["todo://a"])
        #expect(try #require(submit(&state, "todo://b")).deliveries.isEmpty)
        let afterA = state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        #expect(afterA.finished.map { try? $0.get().handled } == [true])
        #expect(afterA.deliveries.map(\.url) == ["todo://b"])
        // An answer for a request that is no longer in flight changes nothing.
        #expect(state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0).isEmpty)
    }

    @Test func aFullQueueIsRefusedWithoutChangingAnything() throws {
        var state = makeState()
        for url in ["todo://1", "todo://2", "todo://3"] { _ = try #require(submit(&state, url)) }
        #expect(submit(&state, "todo://4") == nil)
        #expect(state.apps["com.acme.todolist"]?.queue.map(\.id) == [1, 2, 3])
        // The refused request did not use up an id.
        _ = state.spawnFailed("com.acme.todolist", CourierError(.launchFailed, "no"), generation: 1, now: t0)
        _ = try #require(submit(&state, "todo://5"))
        #expect(state.apps["com.acme.todolist"]?.queue.map(\.id) == [4])
    }

    @Test func aCheckInBeforeTheSpawnReturnedKeepsThePid() throws {
        var state = makeState()
        _ = try #require(submit(&state, "todo://a"))
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(state.spawned("com.acme.todolist", pid: 42, generation: 1).timers.isEmpty)
        #expect(state.apps["com.acme.todolist"]?.publicState == .active(uniqueName: ":1.5", pid: 42))
        #expect(state.sourceApplication(uniqueName: ":9.9", pid: 42) == "com.acme.todolist")
    }

    @Test func anExitBeforeCheckInFailsTheQueueAndLateEventsAreIgnored() throws {
        var state = makeState()
        _ = try #require(submit(&state, "todo://a"))
        _ = try #require(submit(&state, "todo://b"))
        _ = state.spawned("com.acme.todolist", pid: 42, generation: 1)
        let exited = state.processExited("com.acme.todolist", pid: 42, generation: 1, status: .exited(3), now: t0)
        #expect(exited.finished.count == 2)
        #expect(exited.finished.allSatisfy { (try? $0.get()) == nil })
        #expect(state.apps["com.acme.todolist"]?.publicState == .notRunning)
        #expect(state.apps["com.acme.todolist"]?.failures == 1)
        // The launch timer of that generation fires late: nothing happens, nothing is terminated.
        #expect(state.timerFired(.launch, "com.acme.todolist", generation: 1, now: t0).isEmpty)
    }

    @Test func aLaunchThatNeverChecksInIsTerminated() throws {
        var state = makeState()
        _ = try #require(submit(&state, "todo://a"))
        _ = state.spawned("com.acme.todolist", pid: 42, generation: 1)
        let effects = state.timerFired(.launch, "com.acme.todolist", generation: 1, now: t0)
        #expect(effects.terminated == [42])
        #expect(effects.finished.map { $0.errorCode } == [.launchTimeout])
    }

    @Test func crashLoopBackOffRefusesLaunchesUntilItExpires() throws {
        var state = makeState(threshold: 2)
        for generation in 1...2 {
            _ = try #require(submit(&state, "todo://a"))
            _ = state.spawnFailed("com.acme.todolist", CourierError(.launchFailed, "no"), generation: UInt64(generation), now: t0)
        }
        let refused = try #require(submit(&state, "todo://a", at: t0 + .seconds(29)))
        #expect(refused.spawns.isEmpty)
        #expect(refused.finished.first?.errorMessage?.contains("crash-loop") == true)
        #expect(try #require(submit(&state, "todo://a", at: t0 + .seconds(31))).spawns.count == 1)
    }

    @Test func anAppDyingWhileHandlingAnswersAppFailedAndRelaunchesForTheRest() throws {
        var state = runningState(pid: 42)
        _ = try #require(submit(&state, "todo://a"))
        _ = try #require(submit(&state, "todo://b"))
        let exited = state.processExited("com.acme.todolist", pid: 42, generation: 1, status: .signaled(9), now: t0)
        #expect(exited.finished.map { $0.errorCode } == [.appFailed])
        #expect(exited.spawns.map(\.generation) == [2])
        // The dead process's answer arrives late: ignored.
        #expect(state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0).isEmpty)
    }

    @Test func aSecondCheckInFromTheSameNameIsRefusedAndAnotherNameReplacesTheFirst() throws {
        var state = runningState()
        #expect(throws: CourierError.self) { try state.checkIn(app, uniqueName: ":1.5", now: t0).get() }
        _ = try #require(submit(&state, "todo://a"))
        let (options, effects) = try state.checkIn(app, uniqueName: ":1.6", now: t0).get()
        #expect(options.url == nil)
        #expect(effects.finished.map { $0.errorCode } == [.appFailed])
        #expect(effects.spawns.isEmpty)
        #expect(state.busNameVanished(":1.5", now: t0).isEmpty)
        _ = state.busNameVanished(":1.6", now: t0)
        #expect(state.apps["com.acme.todolist"]?.publicState == .notRunning)
    }

    // MARK: Life cycle

    @Test func everyStateOfAColdRequestIsReportedOnce() throws {
        var state = makeState()
        var effects = try #require(submit(&state, "todo://a"))
        effects += state.spawned("com.acme.todolist", pid: 42, generation: 1)
        effects += try state.checkIn(app, uniqueName: ":1.5", now: t0).get().1
        effects += state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        // The return to idle waits for its timer.
        #expect(effects.states == ["launching", "active"])
        #expect(effects.idleReports == [1])
        effects += state.timerFired(.idleReport, "com.acme.todolist", generation: 1, now: t0)
        #expect(effects.states == ["launching", "active", "idle"])
    }

    @Test func aStreamOfWarmRequestsIsReportedActiveOnceAndIdleOnceItIsQuiet() throws {
        var state = runningState()   // checked in without a launch: reported idle at once
        var effects: [DispatcherEffect] = []
        for id in UInt64(1)...5 {
            effects += try #require(submit(&state, "todo://\(id)"))
            effects += state.delivered("com.acme.todolist", requestID: id, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        }
        // Five deliveries, one report: active; one idle timer armed, not one per request.
        #expect(effects.deliveries.count == 5)
        #expect(effects.states == ["active"])
        #expect(effects.idleReports == [1])
        // A request arrives before the timer: the app is active when it fires, so nothing is reported...
        effects = try #require(submit(&state, "todo://6"))
        #expect(state.timerFired(.idleReport, "com.acme.todolist", generation: 1, now: t0).states.isEmpty)
        // ...and its answer arms the timer again, which then reports idle once.
        effects += state.delivered("com.acme.todolist", requestID: 6, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        #expect(effects.states.isEmpty)
        #expect(effects.idleReports == [1])
        #expect(state.timerFired(.idleReport, "com.acme.todolist", generation: 1, now: t0).states == ["idle"])
        #expect(state.timerFired(.idleReport, "com.acme.todolist", generation: 1, now: t0).states.isEmpty)
        // Leaving is reported at once, even with the idle report pending.
        effects = try #require(submit(&state, "todo://7"))
        effects += state.delivered("com.acme.todolist", requestID: 7, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        #expect(effects.states == ["active"])
        #expect(state.busNameVanished(":1.5", now: t0).states == ["not-running"])
        #expect(state.timerFired(.idleReport, "com.acme.todolist", generation: 1, now: t0).states.isEmpty)
    }

    @Test func terminationSendsTheNoticeHoldsNewRequestsAndRelaunchesForThem() throws {
        var state = runningState(pid: 42)
        let noticed = try state.terminate("com.acme.todolist", reason: "quit").get()
        #expect(noticed.notices == [1])
        #expect(noticed.states == ["terminating"])
        // A request now waits: nothing is delivered to a dying process.
        let held = try #require(submit(&state, "todo://held"))
        #expect(held.deliveries.isEmpty && held.spawns.isEmpty)
        // The app answered the notice: SIGTERM.
        #expect(state.noticeAnswered("com.acme.todolist", generation: 1).terminated == [42])
        // It exits on the signal: not a failure, its state is kept, and the held request relaunches it.
        let exited = state.processExited("com.acme.todolist", pid: 42, generation: 1, status: .signaled(SIGTERM), now: t0)
        #expect(!exited.discards)
        #expect(exited.spawns.map(\.generation) == [2])
        #expect(exited.states == ["not-running", "launching"])
        #expect(state.apps["com.acme.todolist"]?.failures == 0)
    }

    @Test func theNoticeWaitsForTheRequestInFlightAndTheDeadlineSignals() throws {
        var state = runningState(pid: 42)
        _ = try #require(submit(&state, "todo://a"))
        #expect(try state.terminate("com.acme.todolist", reason: "quit").get().notices.isEmpty)
        let answered = state.delivered("com.acme.todolist", requestID: 2, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        #expect(answered.notices == [1])
        // No answer to the notice: the deadline signals it.
        #expect(state.timerFired(.terminationDeadline, "com.acme.todolist", generation: 1, now: t0).terminated == [42])
        // A late answer changes nothing.
        #expect(state.noticeAnswered("com.acme.todolist", generation: 1).isEmpty)
    }

    @Test func anAppThatIsNotRunningCannotBeTerminated() {
        var state = makeState()
        #expect(throws: CourierError.self) { try state.terminate("com.acme.todolist", reason: "quit").get() }
        _ = submit(&state, "todo://a")
        let launching = #expect(throws: CourierError.self) { try state.terminate("com.acme.todolist", reason: "quit").get() }
        #expect(launching?.code == .notRunning)
    }

    @Test func aCrashDiscardsThePreservedStateBeforeTheRelaunch() throws {
        var state = runningState(pid: 42)
        _ = try #require(submit(&state, "todo://a"))
        _ = try #require(submit(&state, "todo://b"))
        let crashed = state.processExited("com.acme.todolist", pid: 42, generation: 1, status: .signaled(SIGSEGV), now: t0)
        let discard = try #require(crashed.firstIndex { if case .discardSavedState = $0 { true } else { false } })
        let spawn = try #require(crashed.firstIndex { if case .spawn = $0 { true } else { false } })
        #expect(discard < spawn)
    }

    @Test func theIdleTimeoutSkipsAppsThatOptOutOrThatCourierDidNotLaunch() throws {
        var state = makeState(idleTimeout: .seconds(60))
        _ = submit(&state, "todo://a")
        _ = state.spawned("com.acme.todolist", pid: 42, generation: 1)
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        _ = state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        let byHand = AppDescriptor(bundleID: "com.acme.byhand", launchArguments: nil)
        _ = try state.checkIn(byHand, uniqueName: ":1.6", now: t0).get()
        #expect(state.reclaim(now: t0 + .seconds(59), underPressure: false).isEmpty)
        let reclaimed = state.reclaim(now: t0 + .seconds(61), underPressure: false)
        #expect(reclaimed.notices == [1])
        #expect(state.apps["com.acme.byhand"]?.publicState == .idle(uniqueName: ":1.6", pid: nil))

        var keep = makeState(idleTimeout: .seconds(60))
        let kept = AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/usr/bin/todolist"], terminatesWhenIdle: false)
        _ = keep.submit(OpenRequest(url: "todo://a"), to: kept, received: t0, completion: { _ in }, now: t0)
        _ = keep.spawned("com.acme.todolist", pid: 42, generation: 1)
        _ = try keep.checkIn(kept, uniqueName: ":1.5", now: t0).get()
        _ = keep.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        #expect(keep.reclaim(now: t0 + .seconds(3600), underPressure: true).isEmpty)
    }

    @Test func memoryPressureTerminatesTheLeastRecentlyUsedIdleAppOnePerSweep() throws {
        var state = makeState()
        for (index, name) in ["a", "b", "c"].enumerated() {
            let descriptor = AppDescriptor(bundleID: "com.acme.\(name)", launchArguments: ["/bin/\(name)"])
            let at = t0 + .seconds(index)
            _ = state.submit(OpenRequest(url: "\(name)://x"), to: descriptor, received: at, completion: { _ in }, now: at)
            _ = state.spawned(descriptor.bundleID, pid: Int32(100 + index), generation: 1)
            _ = try state.checkIn(descriptor, uniqueName: ":1.\(index)", now: at).get()
            _ = state.delivered(descriptor.bundleID, requestID: UInt64(index + 1), generation: 1, .success(DeliveryAnswer(handled: true)), now: at)
        }
        #expect(state.reclaim(now: t0 + .seconds(10), underPressure: false).isEmpty)
        #expect(state.reclaim(now: t0 + .seconds(10), underPressure: true).terminating == ["com.acme.a"])
        #expect(state.reclaim(now: t0 + .seconds(10), underPressure: true).terminating == ["com.acme.b"])
    }

    /// A record checked in from `:1.5` (launched with `pid` when given), generation 1, queue empty.
    func runningState(pid: Int32? = nil) -> DispatcherState {
        var state = makeState()
        if let pid {
            _ = submit(&state, "todo://launch")
            _ = state.spawned("com.acme.todolist", pid: pid, generation: 1)
            _ = try? state.checkIn(app, uniqueName: ":1.5", now: t0).get()
            _ = state.delivered("com.acme.todolist", requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        } else {
            _ = try? state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        }
        return state
    }
}

extension [DispatcherEffect] {
    var spawns: [(spec: LaunchSpec, generation: UInt64)] {
        compactMap { if case .spawn(let spec, let generation) = $0 { (spec, generation) } else { nil } }
    }
    var timers: [UInt64] {
        compactMap { if case .startTimer(.launch, _, let generation, _) = $0 { generation } else { nil } }
    }
    var idleReports: [UInt64] {
        compactMap { if case .startTimer(.idleReport, _, let generation, _) = $0 { generation } else { nil } }
    }
    var notices: [UInt64] {
        compactMap { if case .notifyTermination(_, let generation, _) = $0 { generation } else { nil } }
    }
    var discards: Bool {
        contains { if case .discardSavedState = $0 { true } else { false } }
    }
    var states: [String] {
        compactMap { if case .event(.stateChanged(_, let state)) = $0 { state.name } else { nil } }
    }
    var terminating: [String] {
        compactMap { if case .event(.stateChanged(let id, .terminating)) = $0 { id } else { nil } }
    }
    var terminated: [Int32] {
        compactMap { if case .terminate(let pid, _) = $0 { pid } else { nil } }
    }
    var deliveries: [Delivery] {
        compactMap { if case .deliver(_, let delivery, _, _) = $0 { delivery } else { nil } }
    }
    var finished: [Result<OpenOutcome, CourierError>] {
        compactMap { if case .finish(_, _, let result) = $0 { result } else { nil } }
    }
}

extension Result<OpenOutcome, CourierError> {
    var errorCode: CourierError.Code? {
        if case .failure(let error) = self { error.code } else { nil }
    }
    var errorMessage: String? {
        if case .failure(let error) = self { error.message } else { nil }
    }
}

/// The edges of an app's life: a process the broker did not launch, a caller's deadline, a caller
/// that left, a process that does not end.
extension DispatcherStateTests {
    @Test func anAdoptedProcessIsHeldLikeALaunchedOne() throws {
        var state = makeState(idleTimeout: .seconds(60))
        // Any running process stands in for the verified one: the effects are not performed here.
        let process = try #require(ProcessHandle(pid: getpid()))
        _ = try state.checkIn(app, uniqueName: ":1.7", process: process, now: t0).get()
        #expect(state.apps["com.acme.todolist"]?.publicState == .idle(uniqueName: ":1.7", pid: getpid()))
        #expect(state.sourceApplication(uniqueName: ":1.99", pid: getpid()) == "com.acme.todolist")
        // The idle policy reaches it, and its signal goes through the held process.
        let reclaimed = state.reclaim(now: t0 + .seconds(61), underPressure: false)
        #expect(reclaimed.notices == [1])
        let signalled = state.noticeAnswered("com.acme.todolist", generation: 1)
        let held = signalled.compactMap { if case .terminate(let pid, let handle) = $0 { (pid, handle) } else { nil } }
        #expect(held.count == 1 && held.first?.0 == getpid() && held.first?.1 === process)
    }

    @Test func aTerminatingProcessThatNeverLeavesIsAbandonedAndItsRequestsAnswered() throws {
        var state = runningState(pid: 42)
        _ = try state.terminate("com.acme.todolist", reason: "quit").get()
        let waiting = try #require(submit(&state, "todo://waits"))
        #expect(waiting.finished.isEmpty)
        // No answer to the notice, SIGTERM; then the process is still there after the grace.
        let signalled = state.timerFired(.terminationDeadline, "com.acme.todolist", generation: 1, now: t0)
        #expect(signalled.terminated == [42])
        let abandoned = state.timerFired(.terminationDeadline, "com.acme.todolist", generation: 1, now: t0)
        #expect(abandoned.finished.map { $0.errorCode } == [.notResponding])
        // Later requests are answered at once instead of waiting for it.
        #expect(try #require(submit(&state, "todo://later")).finished.map { $0.errorCode } == [.notResponding])
        // When it does leave, the next request relaunches it.
        _ = state.processExited("com.acme.todolist", pid: 42, generation: 1, status: .signaled(SIGKILL), now: t0)
        #expect(try #require(submit(&state, "todo://after")).spawns.map(\.generation) == [2])
    }

    @Test func aRequestInFlightOverrunningTheTerminationDeadlineIsSignalled() throws {
        var state = runningState(pid: 42)
        _ = try #require(submit(&state, "todo://slow"))
        let terminating = try state.terminate("com.acme.todolist", reason: "quit").get()
        #expect(terminating.notices.isEmpty)
        #expect(state.timerFired(.terminationDeadline, "com.acme.todolist", generation: 1, now: t0).terminated == [42])
    }

    @Test func aCallersDeadlineEndsOnlyItsOwnWait() throws {
        var state = runningState(pid: 42)
        var request = OpenRequest(url: "todo://slow")
        request.options.deliveryTimeout = .milliseconds(100)
        let sent = state.submit(request, to: app, received: t0, completion: { _ in }, now: t0) ?? []
        #expect(sent.deliveries.map(\.url) == ["todo://slow"])
        #expect(try #require(submit(&state, "todo://next")).deliveries.isEmpty)
        let due = state.timerFired(.requestDeadline, "com.acme.todolist", generation: 1, now: t0 + .milliseconds(100))
        #expect(due.finished.map { $0.errorCode } == [.unanswered])
        #expect(due.deliveries.isEmpty, "the app still has the request: the next one waits for its answer")
        // The app answers late: its caller is not answered twice, nothing counts against the app,
        // and the next request goes.
        let late = state.delivered("com.acme.todolist", requestID: 2, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0 + .seconds(1))
        #expect(late.finished.isEmpty)
        #expect(late.deliveries.map(\.url) == ["todo://next"])
        #expect(state.apps["com.acme.todolist"]?.failures == 0)
        #expect(state.apps["com.acme.todolist"]?.handled == 2)
    }

    @Test func aQueuedRequestIsWithdrawnWhenItsDeadlinePassesOrItsCallerLeaves() throws {
        var state = DispatcherState(policy: .init(maxQueuedPerApp: 10, crashLoop: .init()))
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        _ = try #require(submit(&state, "todo://hung"))
        var timed = OpenRequest(url: "todo://timed")
        timed.options.deliveryTimeout = .milliseconds(300)
        _ = state.submit(timed, to: app, received: t0, completion: { _ in }, now: t0)
        var gone = OpenRequest(url: "todo://gone", caller: ":1.40")
        gone.callerIdentity = CallerIdentity(uniqueName: ":1.40", pid: nil)
        _ = state.submit(gone, to: app, received: t0, completion: { _ in }, now: t0)
        _ = try #require(submit(&state, "todo://stays"))
        // Requests of that same caller it does not wait for, and the open of a file it dropped
        // (already in the Inbox), stay.
        var unwaited = OpenRequest(url: "todo://no-wait", caller: ":1.40")
        unwaited.callerWaits = false
        _ = state.submit(unwaited, to: app, received: t0, completion: { _ in }, now: t0)
        let dropped = OpenRequest(url: "file:///inbox/a.txt", caller: ":1.40", facts: BrokerFacts(droppedFile: true))
        _ = state.submit(dropped, to: app, received: t0, completion: { _ in }, now: t0)

        let left = state.busNameVanished(":1.40", now: t0)
        #expect(left.finished.map { $0.errorCode } == [.withdrawn])
        let due = state.timerFired(.requestDeadline, "com.acme.todolist", generation: 1, now: t0 + .milliseconds(300))
        #expect(due.finished.map { $0.errorCode } == [.withdrawn])
        #expect(state.apps["com.acme.todolist"]?.queue.map(\.request.url) == ["todo://stays", "todo://no-wait", "file:///inbox/a.txt"])
        // The hung request's failure marks the app, and its next answer clears the mark.
        let hung = state.delivered("com.acme.todolist", requestID: 1, generation: 1, .failure(CourierError(.notResponding, "hung")), now: t0 + .seconds(25))
        #expect(hung.deliveries.map(\.url) == ["todo://stays"])
        #expect(state.statuses(now: t0).first?.notResponding == true)
        #expect(state.apps["com.acme.todolist"]?.failures == 0)
        _ = state.delivered("com.acme.todolist", requestID: 4, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0 + .seconds(26))
        #expect(state.statuses(now: t0).first?.notResponding == false)
    }
}

extension DispatcherState {
    func statuses(now: ContinuousClock.Instant) -> [AppStatus] { apps.values.map { $0.status(now: now) } }
}
