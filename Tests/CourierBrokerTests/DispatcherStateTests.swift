@testable import CourierBroker
import Testing

/// The dispatcher's pure transitions, event by event: no lock, no process, no bus, no clock.
@Suite("DispatcherState")
struct DispatcherStateTests {
    let app = AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/usr/bin/todolist"], launchTimeout: .seconds(5))
    let t0 = ContinuousClock.now

    func makeState(threshold: Int = 3) -> DispatcherState {
        DispatcherState(policy: .init(maxQueuedPerApp: 3, crashLoop: .init(threshold: threshold, baseDelay: .seconds(30))))
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
        #expect(state.apps["com.acme.todolist"]?.launchedPID == 42)

        let (options, effects) = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(options.url == "todo://a" && options.requestID == 1)
        #expect(effects.deliveries.map(\.url) == ["todo://a"])
        #expect(effects.deliveries.first?.isLaunchRequest == true)
        #expect(state.apps["com.acme.todolist"]?.publicState == .running(uniqueName: ":1.5", pid: 42))
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
        _ = state.spawnFailed("com.acme.todolist", BrokerError(.launchFailed, "no"), generation: 1, now: t0)
        _ = try #require(submit(&state, "todo://5"))
        #expect(state.apps["com.acme.todolist"]?.queue.map(\.id) == [4])
    }

    @Test func aCheckInBeforeTheSpawnReturnedKeepsThePid() throws {
        var state = makeState()
        _ = try #require(submit(&state, "todo://a"))
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(state.spawned("com.acme.todolist", pid: 42, generation: 1).timers.isEmpty)
        #expect(state.apps["com.acme.todolist"]?.publicState == .running(uniqueName: ":1.5", pid: 42))
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
        #expect(state.launchTimedOut("com.acme.todolist", generation: 1, now: t0).isEmpty)
    }

    @Test func aLaunchThatNeverChecksInIsTerminated() throws {
        var state = makeState()
        _ = try #require(submit(&state, "todo://a"))
        _ = state.spawned("com.acme.todolist", pid: 42, generation: 1)
        let effects = state.launchTimedOut("com.acme.todolist", generation: 1, now: t0)
        #expect(effects.terminated == [42])
        #expect(effects.finished.map { $0.errorCode } == [.launchTimeout])
    }

    @Test func crashLoopBackOffRefusesLaunchesUntilItExpires() throws {
        var state = makeState(threshold: 2)
        for generation in 1...2 {
            _ = try #require(submit(&state, "todo://a"))
            _ = state.spawnFailed("com.acme.todolist", BrokerError(.launchFailed, "no"), generation: UInt64(generation), now: t0)
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
        #expect(throws: BrokerError.self) { try state.checkIn(app, uniqueName: ":1.5", now: t0).get() }
        _ = try #require(submit(&state, "todo://a"))
        let (options, effects) = try state.checkIn(app, uniqueName: ":1.6", now: t0).get()
        #expect(options.url == nil)
        #expect(effects.finished.map { $0.errorCode } == [.appFailed])
        #expect(effects.spawns.isEmpty)
        #expect(state.busNameVanished(":1.5", now: t0).isEmpty)
        _ = state.busNameVanished(":1.6", now: t0)
        #expect(state.apps["com.acme.todolist"]?.publicState == .notRunning)
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
        compactMap { if case .startLaunchTimer(_, let generation, _) = $0 { generation } else { nil } }
    }
    var terminated: [Int32] {
        compactMap { if case .terminate(let pid) = $0 { pid } else { nil } }
    }
    var deliveries: [Delivery] {
        compactMap { if case .deliver(_, let delivery, _, _) = $0 { delivery } else { nil } }
    }
    var finished: [Result<OpenOutcome, BrokerError>] {
        compactMap { if case .finish(_, _, let result) = $0 { result } else { nil } }
    }
}

extension Result<OpenOutcome, BrokerError> {
    var errorCode: BrokerError.Code? {
        if case .failure(let error) = self { error.code } else { nil }
    }
    var errorMessage: String? {
        if case .failure(let error) = self { error.message } else { nil }
    }
}
