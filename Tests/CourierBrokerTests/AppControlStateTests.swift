@testable import CourierBroker
import CourierNames
import Synchronization
import Testing

/// Launch without a URL, restart, kill without notice, the record of how instances end, and
/// keep-alive: the dispatcher's pure transitions, event by event.
@Suite("App control (DispatcherState)")
struct AppControlStateTests {
    let app = AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/usr/bin/todolist"], launchTimeout: .seconds(5))
    let t0 = ContinuousClock.now

    func makeState(_ crashLoop: CrashLoopPolicy = .init(threshold: 2, baseDelay: .seconds(30), keepAliveAttempts: 3)) -> DispatcherState {
        DispatcherState(policy: .init(maxQueuedPerApp: 8, crashLoop: crashLoop, termination: .init(noticeDeadline: .seconds(5))))
    }

    /// Answers collected from `launchAnswered` effects.
    final class Answers: Sendable {
        let results = Mutex<[Result<LaunchAnswer, CourierError>]>([])
        var waiter: AppRecord.LaunchWaiter { { result in self.results.withLock { $0.append(result) } } }
        var count: Int { results.withLock { $0.count } }
        var last: Result<LaunchAnswer, CourierError>? { results.withLock { $0.last } }
    }

    /// The app launched for todo://first (pid 42, generation 1), checked in and idle.
    func launchedState() throws -> DispatcherState {
        var state = makeState()
        _ = state.submit(OpenRequest(url: "todo://first"), to: app, received: t0, completion: { _ in }, now: t0)
        _ = state.spawned(app.bundleID, pid: 42, generation: 1)
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        _ = state.delivered(app.bundleID, requestID: 1, generation: 1, .success(DeliveryAnswer(handled: true)), now: t0)
        return state
    }

    func perform(_ effects: [DispatcherEffect]) {
        for case .launchAnswered(let waiters, let result) in effects { waiters.forEach { $0(result) } }
    }

    @Test func aLaunchWithoutAURLSpawnsAndAnswersAtCheckIn() throws {
        var state = makeState()
        let answers = Answers()
        let effects = state.start(app, LaunchOrder(by: ":1.9", arguments: ["--verbose"], fresh: true), waiter: answers.waiter, now: t0)
        #expect(effects.spawns.map(\.spec.arguments) == [["/usr/bin/todolist", "--verbose"]])
        perform(effects)
        #expect(answers.count == 0)
        _ = state.spawned(app.bundleID, pid: 42, generation: 1)
        let (options, checkedIn) = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        // Launched for nothing in particular: no URL, but the broker did launch it, fresh.
        #expect(options.url == nil && options.launched && options.fresh)
        #expect(checkedIn.deliveries.isEmpty)
        perform(checkedIn)
        #expect(try answers.last?.get() == LaunchAnswer(alreadyRunning: false, state: .idle(uniqueName: ":1.5", pid: 42)))
        #expect(state.apps[app.bundleID]?.startedBy == ":1.9")
    }

    @Test func aLaunchOfARunningAppAnswersAlreadyRunningAndSpawnsNothing() throws {
        var state = makeState()
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        let answers = Answers()
        let effects = state.start(app, LaunchOrder(by: ":1.9"), waiter: answers.waiter, now: t0)
        #expect(effects.spawns.isEmpty)
        perform(effects)
        #expect(try answers.last?.get().alreadyRunning == true)
    }

    @Test func aLaunchThatExitsBeforeCheckingInIsAnsweredWithWhy() throws {
        var state = makeState()
        let answers = Answers()
        perform(state.start(app, LaunchOrder(by: ":1.9"), waiter: answers.waiter, now: t0))
        _ = state.spawned(app.bundleID, pid: 42, generation: 1)
        perform(state.processExited(app.bundleID, pid: 42, generation: 1, status: .exited(3), now: t0 + .seconds(1)))
        guard case .failure(let error) = answers.last else { Issue.record("not answered"); return }
        #expect(error.code == .launchFailed && error.message.contains("exited with status 3"))
        let end = try #require(state.apps[app.bundleID]?.ends.last)
        #expect(end.status == .exited(3) && end.pid == 42 && end.lifetime == .seconds(1) && end.requestedBy == nil)
    }

    @Test func aRestartTerminatesWithNoticeThenLaunchesAndHoldsTheOpenThatRacesIt() throws {
        var state = try launchedState()
        let answers = Answers()
        let restart = state.restart(app, LaunchOrder(by: ":1.9"), waiter: answers.waiter, now: t0)
        #expect(restart.notices == [1])
        // An open racing the restart waits for the new instance.
        let submitted = state.submit(OpenRequest(url: "todo://racing"), to: app, received: t0, completion: { _ in }, now: t0)
        let racing = try #require(submitted)
        #expect(racing.deliveries.isEmpty && racing.spawns.isEmpty)
        _ = state.noticeAnswered(app.bundleID, generation: 1)
        let exited = state.processExited(app.bundleID, pid: 42, generation: 1, status: .exited(0), now: t0 + .seconds(2))
        #expect(exited.spawns.map(\.generation) == [2])
        let end = try #require(state.apps[app.bundleID]?.ends.last)
        #expect(end.requestedBy == "restart by :1.9" && !end.forced && end.status == .exited(0))
        _ = state.spawned(app.bundleID, pid: 43, generation: 2)
        let (options, checkedIn) = try state.checkIn(app, uniqueName: ":1.6", now: t0 + .seconds(3)).get()
        #expect(options.url == "todo://racing")
        #expect(checkedIn.deliveries.map(\.url) == ["todo://racing"])
        perform(checkedIn)
        #expect(try answers.last?.get().state.pid == 43)
    }

    @Test func aForcedQuitKillsWithoutNoticeAndIsRecordedAsSuchNotAsAFailure() throws {
        var state = makeState()
        _ = state.submit(OpenRequest(url: "todo://first"), to: app, received: t0, completion: { _ in }, now: t0)
        _ = state.spawned(app.bundleID, pid: 42, generation: 1)
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        // Killed while handling todo://first.
        let effects = try state.kill(app.bundleID, by: ":1.9").get()
        #expect(effects.notices.isEmpty)
        #expect(effects.contains { if case .kill(42, nil) = $0 { true } else { false } })
        #expect(effects.terminated.isEmpty)
        let gone = state.processExited(app.bundleID, pid: 42, generation: 1, status: .signaled(9), now: t0 + .seconds(4))
        #expect(gone.finished.first?.errorMessage?.contains("was killed (quit --force) while handling todo://first") == true)
        let record = try #require(state.apps[app.bundleID])
        #expect(record.failures == 0)
        let end = try #require(record.ends.last)
        #expect(end.forced && end.requestedBy == "quit --force by :1.9" && end.status == .signaled(9))
        #expect(end.unanswered == "todo://first" && end.lifetime == .seconds(4))
        // What it printed last is read for the end, and kept with it.
        #expect(gone.contains { if case .readLogTail(_, 42) = $0 { true } else { false } })
        state.logRead(app.bundleID, pid: 42, lines: ["last words"])
        #expect(state.apps[app.bundleID]?.ends.last?.log == ["last words"])
    }

    @Test func aForcedQuitOfAnAppNotRunningIsNotRunning() {
        var state = makeState()
        #expect(throws: CourierError.self) { try state.kill(app.bundleID, by: ":1.9").get() }
        _ = try? state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        // Checked in by itself, no process held: nothing the broker can kill.
        guard case .failure(let error) = state.kill(app.bundleID, by: ":1.9") else { Issue.record("killed"); return }
        #expect(error.code == .notPermitted)
    }

    @Test func anEndSeenOnTheBusGetsItsExitStatusWhenTheProcessIsReaped() throws {
        var state = try launchedState()
        _ = state.busNameVanished(":1.5", now: t0 + .seconds(1))
        #expect(state.apps[app.bundleID]?.ends.last?.reason == "left the bus")
        _ = state.processExited(app.bundleID, pid: 42, generation: 1, status: .signaled(11), now: t0 + .seconds(1))
        let end = try #require(state.apps[app.bundleID]?.ends.last)
        #expect(end.status == .signaled(11) && end.reason == "was killed by signal 11")
        #expect(state.apps[app.bundleID]?.ends.count == 1)
    }

    @Test func onlyTheLastEndsAreKept() throws {
        var state = makeState(.init(threshold: 100))
        for generation in 1...UInt64(AppRecord.keptEnds + 2) {
            _ = state.submit(OpenRequest(url: "todo://\(generation)"), to: app, received: t0, completion: { _ in }, now: t0)
            _ = state.spawned(app.bundleID, pid: Int32(generation), generation: generation)
            _ = state.processExited(app.bundleID, pid: Int32(generation), generation: generation, status: .exited(1), now: t0)
        }
        #expect(state.apps[app.bundleID]?.ends.map(\.pid) == (3...7).map { Int32($0) })
    }

    // MARK: Keep-alive

    var keptAlive: AppDescriptor {
        var descriptor = app
        descriptor.keepAlive = true
        return descriptor
    }

    @Test func aKeepAliveAppThatCrashesIsRelaunchedWithTheBackOffThenMarkedFailed() throws {
        var state = makeState()
        perform(state.start(keptAlive, LaunchOrder(by: LaunchOrder.keepAliveStarter), waiter: nil, now: t0))
        _ = state.spawned(app.bundleID, pid: 1, generation: 1)
        // 1st failure: relaunched at once (under the back-off threshold of 2).
        let first = state.processExited(app.bundleID, pid: 1, generation: 1, status: .exited(1), now: t0)
        #expect(first.spawns.map(\.generation) == [2])
        _ = state.spawned(app.bundleID, pid: 2, generation: 2)
        // 2nd: the back-off holds the relaunch: a keep-alive timer instead of a refusal.
        let second = state.processExited(app.bundleID, pid: 2, generation: 2, status: .exited(1), now: t0)
        #expect(second.spawns.isEmpty)
        #expect(second.contains { if case .startTimer(.keepAlive, _, 2, .seconds(30)) = $0 { true } else { false } })
        let due = state.timerFired(.keepAlive, app.bundleID, generation: 2, now: t0 + .seconds(30))
        #expect(due.spawns.map(\.generation) == [3])
        _ = state.spawned(app.bundleID, pid: 3, generation: 3)
        // 3rd: keepAliveAttempts reached: marked failed, told in the log, not relaunched.
        let third = state.processExited(app.bundleID, pid: 3, generation: 3, status: .exited(1), now: t0 + .seconds(30))
        #expect(third.spawns.isEmpty)
        #expect(third.contains { if case .log(.error, let message) = $0 { "\(message)".contains("marked failed") } else { false } })
        #expect(state.apps[app.bundleID]?.status(now: t0).keepAliveFailed == true)
        // A launch on purpose gives it its chances back.
        let answers = Answers()
        let again = state.start(keptAlive, LaunchOrder(by: ":1.9"), waiter: answers.waiter, now: t0 + .seconds(200))
        #expect(again.spawns.map(\.generation) == [4])
        #expect(state.apps[app.bundleID]?.keepAliveFailed == false)
    }

    @Test func aKeepAliveAppThatRanLongEnoughIsRelaunchedWithItsCountReset() throws {
        var state = makeState()
        perform(state.start(keptAlive, LaunchOrder(by: LaunchOrder.runAtLoadStarter), waiter: nil, now: t0))
        _ = state.spawned(app.bundleID, pid: 1, generation: 1)
        _ = try state.checkIn(keptAlive, uniqueName: ":1.5", now: t0).get()
        let exited = state.processExited(app.bundleID, pid: 1, generation: 1, status: .exited(0), now: t0 + .seconds(60))
        #expect(exited.spawns.map(\.generation) == [2])
        #expect(state.apps[app.bundleID]?.failures == 0)
        #expect(state.apps[app.bundleID]?.startedBy == LaunchOrder.keepAliveStarter)
    }

    @Test func aQuitKeepAliveAppStaysDown() throws {
        var state = makeState()
        perform(state.start(keptAlive, LaunchOrder(by: ":1.9"), waiter: nil, now: t0))
        _ = state.spawned(app.bundleID, pid: 1, generation: 1)
        _ = try state.checkIn(keptAlive, uniqueName: ":1.5", now: t0).get()
        _ = try state.terminate(app.bundleID, reason: "quit by :1.9").get()
        _ = state.noticeAnswered(app.bundleID, generation: 1)
        let exited = state.processExited(app.bundleID, pid: 1, generation: 1, status: .signaled(15), now: t0 + .seconds(1))
        #expect(exited.spawns.isEmpty)
        #expect(state.apps[app.bundleID]?.ends.last?.requestedBy == "quit by :1.9")
    }

    @Test func theIdlePolicyLeavesKeepAliveAndRunAtLoadAppsAlone() throws {
        var runAtLoad = app
        runAtLoad.runAtLoad = true
        for descriptor in [keptAlive, runAtLoad] {
            var state = DispatcherState(policy: .init(maxQueuedPerApp: 8, crashLoop: .init(), termination: .init(idleTimeout: .seconds(1))))
            perform(state.start(descriptor, LaunchOrder(by: "test"), waiter: nil, now: t0))
            _ = state.spawned(app.bundleID, pid: 1, generation: 1)
            _ = try state.checkIn(descriptor, uniqueName: ":1.5", now: t0).get()
            #expect(state.reclaim(now: t0 + .seconds(60), underPressure: true).notices.isEmpty)
        }
        // The same app without either key is reclaimed.
        var state = DispatcherState(policy: .init(maxQueuedPerApp: 8, crashLoop: .init(), termination: .init(idleTimeout: .seconds(1))))
        perform(state.start(app, LaunchOrder(by: "test"), waiter: nil, now: t0))
        _ = state.spawned(app.bundleID, pid: 1, generation: 1)
        _ = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(state.reclaim(now: t0 + .seconds(60), underPressure: false).notices == [1])
    }

    // MARK: Arguments

    @Test func launchArgumentsFromAnotherAppAreRefused() {
        let state = makeState()
        var request = OpenRequest(url: "todo://a")
        request.options.arguments = ["--evil"]
        request.sourceApplication = "com.acme.other"
        #expect(state.callerRefusal(request, to: app)?.code == .notPermitted)
        request.sourceApplication = ""
        #expect(state.callerRefusal(request, to: app) == nil)
    }

    @Test func anOpenWithArgumentsThatLaunchesPassesThemAfterTheLaunchCommand() throws {
        var state = makeState()
        var request = OpenRequest(url: "todo://a")
        request.options.arguments = ["--", "x y"]
        request.options.fresh = true
        let submitted = state.submit(request, to: app, received: t0, completion: { _ in }, now: t0)
        let effects = try #require(submitted)
        #expect(effects.spawns.map(\.spec.arguments) == [["/usr/bin/todolist", "--", "x y"]])
        _ = state.spawned(app.bundleID, pid: 42, generation: 1)
        let (options, _) = try state.checkIn(app, uniqueName: ":1.5", now: t0).get()
        #expect(options.fresh && options.url == "todo://a")
    }
}
