import BusTestSupport
import Courier
import CourierBroker
import CourierInbox
import DBus
import Foundation
import Logging
import Testing
import CourierTools
import CourierProtocol

/// The edges of an app's life on a real bus, with real processes: an app the broker did not launch
/// (adopted after a restart), a caller whose deadline passes, a caller that leaves, a hung app.
@Suite("Lifecycle edges (bus)", .serialized)
struct LifecycleEdgeTests {
    static func psRow(_ fixture: BrokerFixture, _ bundleID: String) async throws -> [String: Any]? {
        let ps = try await fixture.run(Products.path("courier"), ["ps", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(ps.output.utf8)) as? [[String: Any]]
        return rows?.first { $0["bundle_id"] as? String == bundleID }
    }

    static func openError(_ client: BrokerToolClient, _ url: String, options: OpenRequestOptions = .init()) async -> CourierError? {
        do {
            _ = try await client.open(url, options: options)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Adopted apps

    @Test func anAdoptedAppIsListedQuitAndRelaunchedLikeALaunchedOne() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?Before").handled)
        let appPID = try #require(fixture.launcher.pids.first)
        let (restarted, launcher) = try await fixture.restartBroker()
        defer {
            for pid in launcher.pids { kill(pid, SIGKILL) }
            restarted.stop()
            restarted.connection.close()
        }
        #expect(try await fixture.client.open("todolist://www.acme.com?Adopted").handled)
        #expect(launcher.count == 0)

        let row = try #require(try await Self.psRow(fixture, "com.acme.todolist"))
        #expect(row["pid"] as? Int == Int(appPID))
        #expect((row["rss_bytes"] as? Int ?? 0) > 0)

        // `courier quit` ends it (through the verified process it holds) and returns.
        let quit = try await fixture.run(Products.path("courier"), ["quit", "--timeout", "20", "com.acme.todolist"])
        #expect(quit.status == 0, "\(quit.error)")
        #expect(await eventually { fixture.launcher.exitStatus(appPID) != nil })
        // The next URL is not wedged: the new broker launches the app for it.
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20the%20quit").handled)
        #expect(launcher.count == 1)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["Before", "Adopted", "After the quit"])
    }

    @Test func theIdlePolicyReclaimsAnAdoptedApp() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?Before").handled)
        let appPID = try #require(fixture.launcher.pids.first)
        let (restarted, launcher) = try await fixture.restartBroker(termination: .init(idleTimeout: .milliseconds(300), sweepInterval: .milliseconds(50)))
        defer {
            for pid in launcher.pids { kill(pid, SIGKILL) }
            restarted.stop()
            restarted.connection.close()
        }
        #expect(await eventually { fixture.launcher.exitStatus(appPID) != nil })
        // The restarted broker holds the adopted app through its own handle: it sees the exit just after.
        #expect(await eventually { restarted.dispatcher.state(of: "com.acme.todolist") == .notRunning })
    }

    // MARK: Relaunch

    @Test func aRelaunchRightAfterATerminationWaitsForThePreviousInstanceToLeaveTheBus() async throws {
        // The terminated instance's bus connection outlives its process by 600 ms (a child holds
        // its socket), as an exiting process's does for a moment on a busy bus.
        let fixture = try await BrokerFixture {
            try LifecycleBusTests.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--linger-ms", "600"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let changes = try await fixture.client.stateChanges(of: "com.acme.life")
        try await fixture.client.terminate(bundleID: "com.acme.life")
        #expect(await LifecycleBusTests.reach("not-running", changes) != nil)
        let result = await Self.openError(fixture.client, "life://two")
        #expect(result == nil, "\(String(describing: result))")
        #expect(fixture.launcher.count == 2)
        #expect(LifecycleBusTests.events(fixture, "com.acme.life").last == "open life://two")
    }

    // MARK: Callers' deadlines

    @Test func aCallersDeadlineIsToldUnansweredAndNeverCountsAgainstTheApp() async throws {
        let fixture = try await BrokerFixture {
            try LifecycleBusTests.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--open-delay-ms", "400"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://launch").handled)
        func lateOpens() -> Int { LifecycleBusTests.events(fixture, "com.acme.life").filter { $0.hasPrefix("open life://late") }.count }
        for index in 1...6 {
            let error = await Self.openError(fixture.client, "life://late\(index)", options: OpenRequestOptions(timeout: .milliseconds(100)))
            #expect(error?.code == .unanswered, "\(String(describing: error))")
            #expect(error?.message.contains("may still act on it") == true)
            // It reached the app, as its caller was told (the next one then finds the app free).
            #expect(await eventually { lateOpens() == index })
        }
        let row = try #require(try await Self.psRow(fixture, "com.acme.life"))
        #expect(row["failures"] as? Int == 0)
        #expect(try await fixture.client.open("life://after").handled)
        #expect(fixture.launcher.count == 1)
    }

    @Test func sixOpensWithAZeroDeadlineLeaveTheTodolistUnpunished() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let client = fixture.client
        let outcomes = await withTaskGroup(of: CourierErrorCode?.self) { group in
            for index in 1...6 {
                group.addTask { await Self.openError(client, "todolist://www.acme.com?Zero\(index)", options: OpenRequestOptions(timeout: .zero))?.code }
            }
            return await group.reduce(into: [CourierErrorCode?]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == nil || $0 == .unanswered || $0 == .withdrawn }, "\(outcomes)")
        let row = try #require(try await Self.psRow(fixture, "com.acme.todolist"))
        #expect(row["failures"] as? Int == 0)
        #expect(try await fixture.client.open("todolist://www.acme.com?Plain").handled)
        // What the app stored is what its callers were told reached it.
        let delivered = outcomes.filter { $0 != .withdrawn }.count
        #expect(await eventually { fixture.todoItems().count == delivered + 1 }, "\(fixture.todoItems()) for \(outcomes)")
    }

    // MARK: A hung app

    @Test func aHungAppIsNamedAndMarkedAndTheRequestsItsCallersGaveUpOnAreWithdrawn() async throws {
        let fixture = try await BrokerFixture(deliveryTimeout: .seconds(2)) {
            try LifecycleBusTests.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--hang-on", "hang"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let pid = try #require(fixture.launcher.pids.first)
        let client = fixture.client
        let hung = Task { await Self.openError(client, "life://hang") }
        #expect(await eventually { LifecycleBusTests.events(fixture, "com.acme.life").contains("hang life://hang") })

        // A caller that leaves the bus while its request waits behind the hung one…
        let leaving = BrokerToolClient(connection: try fixture.bus.connect())
        let left = Task { await Self.openError(leaving, "life://two") }
        #expect(await eventually { fixture.service.dispatcher.statuses().first { $0.bundleID == "com.acme.life" }?.queued == 1 })
        leaving.connection.close()
        _ = await left.value
        // …and one whose deadline passes there: told at its deadline, not when the app answers.
        let started = ContinuousClock.now
        let timed = await Self.openError(client, "life://three", options: OpenRequestOptions(timeout: .milliseconds(300)))
        #expect(timed?.code == .withdrawn, "\(String(describing: timed))")
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(fixture.service.dispatcher.statuses().first { $0.bundleID == "com.acme.life" }?.queued == 0)

        let error = await hung.value
        #expect(error?.code == .notResponding, "\(String(describing: error))")
        #expect(error?.message.contains("com.acme.life (pid \(pid)) is not responding") == true, "\(String(describing: error))")
        let row = try #require(try await Self.psRow(fixture, "com.acme.life"))
        #expect(row["not_responding"] as? Bool == true)
        let table = try await fixture.run(Products.path("courier"), ["ps"])
        #expect(table.output.split(separator: "\n").first { $0.hasPrefix("com.acme.life") }?.contains("not-responding") == true, "\(table.output)")
        // Nothing its callers gave up on was delivered (a check that nothing happens: a late
        // delivery has this long to show).
        try await Task.sleep(for: .milliseconds(300))
        let events = LifecycleBusTests.events(fixture, "com.acme.life")
        #expect(!events.contains("open life://two") && !events.contains("open life://three"), "\(events)")
    }
}
