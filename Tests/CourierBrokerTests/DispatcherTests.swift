@testable import CourierBroker
import CourierNames
import Foundation
import Logging
import Synchronization
import Testing

/// The broker core driven without a bus: real child processes as apps, deliveries recorded in process.
@Suite("Dispatcher")
struct DispatcherTests {
    @Test func coldOpenLaunchesExactlyOnceAndDeliversInArrivalOrder() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])])
        let urls = (0..<50).map { "todo://item?\($0)" }
        let results = Mutex<[Int: Result<OpenOutcome, CourierError>]>([:])
        let done = AsyncStream<Void>.makeStream()
        for (index, url) in urls.enumerated() {
            harness.dispatcher.submit(OpenRequest(url: url)) { result in
                let count = results.withLock { $0[index] = result; return $0.count }
                if count == urls.count { done.continuation.finish() }
            }
        }
        for await _ in done.stream {}
        #expect(harness.launcher.count == 1)
        #expect(harness.deliverer.urls(for: "com.acme.todolist") == urls)
        let outcomes = results.withLock { $0 }
        #expect(outcomes.count == 50)
        #expect(outcomes.values.allSatisfy { (try? $0.get().handled) == true })
        #expect((try? outcomes[0]?.get().launched) == true)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func warmOpenDeliversWithoutLaunching() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])])
        let first = try await harness.dispatcher.open(OpenRequest(url: "todo://a"))
        let second = try await harness.dispatcher.open(OpenRequest(url: "todo://b"))
        #expect(first.launched && !second.launched)
        #expect(second.handled && second.bundleID == "com.acme.todolist")
        #expect(harness.launcher.count == 1)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func checkInReturnsTheLaunchURLAndSourceApplication() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])], autoCheckIn: false)
        let answer = Task { try await harness.dispatcher.open(OpenRequest(url: "todo://first", facts: BrokerFacts(sourceApplication: "com.acme.mail"))) }
        #expect(await eventually { harness.launcher.count == 1 })
        let options = try harness.dispatcher.checkIn(bundleID: "com.acme.todolist", uniqueName: ":1.9")
        #expect(options.url == "todo://first")
        #expect(options.sourceApplication == "com.acme.mail")
        _ = try await answer.value
        let second = try await harness.dispatcher.open(OpenRequest(url: "todo://second"))
        #expect(second.handled)
        let records = harness.deliverer.delivered.withLock { $0 }
        #expect(records.map(\.isLaunchRequest) == [true, false])
        #expect(harness.dispatcher.sourceApplication(uniqueName: ":1.9", pid: nil) == "com.acme.todolist")
        #expect(harness.dispatcher.sourceApplication(uniqueName: ":1.77", pid: nil) == "")
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func launchCreatesTheContainerAndPassesTheEnvironment() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", nil)])
        let out = harness.directory.url.appendingPathComponent("env.txt").path
        let app = harness.script("app", "echo \"$COURIER_BUNDLE_ID|$COURIER_CONTAINER|$XDG_ACTIVATION_TOKEN\" > '\(out)'\nexec sleep 30")
        let dispatcher = Dispatcher(
            resolver: TableResolver(apps: ["todo": AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/bin/sh", app])]),
            launcher: harness.launcher, deliverer: harness.deliverer, logger: quietLogger
        )
        harness.launcher.onLaunch.withLock { $0 = { id, pid in Task { _ = try? dispatcher.checkIn(bundleID: id, uniqueName: ":t.\(pid)") } } }
        _ = try await dispatcher.open(OpenRequest(url: "todo://x", options: CallerOptions(activationToken: "token-1")))
        let container = harness.directory.url.appendingPathComponent("courier/containers/com.acme.todolist").path
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: container + "/Documents", isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(await eventually { (try? String(contentsOfFile: out, encoding: .utf8))?.hasSuffix("\n") == true })
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "com.acme.todolist|\(container)|token-1\n")
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func missingCommandIsLaunchFailedWithErrnoReason() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/nonexistent/courier-app"])])
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchFailed)
        #expect(error?.message.contains("No such file or directory") == true)
        #expect(error?.dbusName == "org.courier.Error.LaunchFailed")
    }

    @Test func notExecutableIsLaunchFailedWithErrnoReason() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", nil)])
        let path = harness.script("plain", "exit 0", executable: false)
        let dispatcher = Dispatcher(resolver: TableResolver(apps: ["todo": AppDescriptor(bundleID: "com.acme.todolist", launchArguments: [path])]), launcher: harness.launcher, deliverer: harness.deliverer, logger: quietLogger)
        let error = await #expect(throws: CourierError.self) { try await dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchFailed)
        #expect(error?.message.contains("Permission denied") == true)
    }

    @Test func bareNameNotOnPathIsLaunchFailed() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["courier-no-such-app"])])
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchFailed)
        #expect(error?.message.contains("not found on the broker's PATH") == true)
        #expect(error?.message.contains("run `courier register MANIFEST` again from a shell whose PATH has it") == true)
    }

    @Test func exitBeforeCheckInIsLaunchFailedWithExitStatus() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sh", "-c", "exit 3"])], autoCheckIn: false)
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchFailed)
        #expect(error?.message.contains("(pid \(harness.launcher.pids.first ?? 0)) exited with status 3 before checking in") == true, "\(String(describing: error))")
        #expect(error?.message.contains("`courier log com.acme.todolist`") == true)
        #expect(harness.dispatcher.state(of: "com.acme.todolist") == .notRunning)
    }

    @Test func appThatNeverChecksInTimesOutAndIsTerminated() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])], launchTimeout: .milliseconds(300), autoCheckIn: false)
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchTimeout)
        #expect(error?.dbusName == "org.courier.Error.LaunchTimeout")
        let pid = try #require(harness.launcher.pids.first)
        #expect(await eventually { !processExists(pid) })
    }

    @Test func appDyingWhileHandlingAnswersAppFailedAndRelaunchesNextTime() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])])
        let launcher = harness.launcher
        harness.deliverer.behaviour.withLock {
            $0 = { delivery, _ in
                if delivery.url == "todo://crash", let pid = launcher.pids.last {
                    kill(pid, SIGKILL)
                    try? await Task.sleep(for: .seconds(5))   // an app that never answers: the exit decides
                }
                return DeliveryAnswer(handled: true)
            }
        }
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://crash")) }
        #expect(error?.code == .appFailed)
        let next = try await harness.dispatcher.open(OpenRequest(url: "todo://next"))
        #expect(next.handled && next.launched)
        #expect(harness.launcher.count == 2)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func crashLoopBacksOffInsteadOfRelaunching() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sh", "-c", "exit 1"])], crashLoop: .init(threshold: 2, baseDelay: .seconds(30)), autoCheckIn: false)
        for _ in 0..<2 {
            await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        }
        let error = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://a")) }
        #expect(error?.code == .launchFailed)
        #expect(error?.message.contains("crash-loop") == true)
        #expect(harness.launcher.count == 2)
    }

    @Test func slowAppDoesNotDelayAnother() async throws {
        let harness = Harness([
            "slow": ("com.acme.slow", ["/bin/sleep", "30"]),
            "fast": ("com.acme.fast", ["/bin/sleep", "30"]),
        ])
        let gate = AsyncStream<Void>.makeStream()
        let stream = gate.stream
        harness.deliverer.behaviour.withLock {
            $0 = { delivery, _ in
                if delivery.url.hasPrefix("slow:") { for await _ in stream {} }
                return DeliveryAnswer(handled: true)
            }
        }
        let slow = Task { try await harness.dispatcher.open(OpenRequest(url: "slow://1")) }
        #expect(await eventually { !harness.deliverer.urls(for: "com.acme.slow").isEmpty })
        let fast = try await harness.dispatcher.open(OpenRequest(url: "fast://1"))
        #expect(fast.handled)
        gate.continuation.finish()
        #expect(try await slow.value.handled)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func declinedIsAnAnswerNotAnError() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])])
        harness.deliverer.behaviour.withLock { $0 = { _, _ in DeliveryAnswer(handled: false) } }
        let outcome = try await harness.dispatcher.open(OpenRequest(url: "todo://a"))
        #expect(!outcome.handled)
        for pid in harness.launcher.pids { kill(pid, SIGKILL) }
    }

    @Test func routingErrorsLaunchNothing() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])])
        let invalid = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "no scheme")) }
        #expect(invalid?.dbusName == "org.courier.Error.InvalidURL")
        let none = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "mailto:x@y")) }
        #expect(none?.dbusName == "org.courier.Error.NoHandler")
        #expect(harness.launcher.count == 0)
    }

    @Test func checkInIsRefusedForUnknownAppsAndTwiceFromOneProcess() async throws {
        let harness = Harness(["todo": ("com.acme.todolist", nil)])
        let unknown = #expect(throws: CourierError.self) { try harness.dispatcher.checkIn(bundleID: "com.evil", uniqueName: ":1.5") }
        #expect(unknown?.code == .notPermitted)
        _ = try harness.dispatcher.checkIn(bundleID: "com.acme.todolist", uniqueName: ":1.6")
        let twice = #expect(throws: CourierError.self) { try harness.dispatcher.checkIn(bundleID: "com.acme.todolist", uniqueName: ":1.6") }
        #expect(twice?.code == .notPermitted)
        // An app started by hand (no launch command) checked in: it gets deliveries.
        let outcome = try await harness.dispatcher.open(OpenRequest(url: "todo://a"))
        #expect(outcome.handled && !outcome.launched)
        harness.dispatcher.busNameVanished(":1.6")
        #expect(harness.dispatcher.state(of: "com.acme.todolist") == .notRunning)
        let gone = await #expect(throws: CourierError.self) { try await harness.dispatcher.open(OpenRequest(url: "todo://b")) }
        #expect(gone?.code == .launchFailed)
    }

    /// A deliverer that answers before `deliver` returns (as the bus deliverer does when a call
    /// cannot even be sent, e.g. on a closed connection): 4,000 requests queued behind a launch are
    /// all answered, in order, without the dispatcher recursing once per request.
    @Test func answersThatArriveBeforeDeliverReturnsAreHandledWithoutRecursion() async throws {
        final class InlineDeliverer: Deliverer {
            let seen = Mutex<[String]>([])
            func deliver(_ delivery: Delivery, to endpoint: AppEndpoint) async throws(CourierError) -> DeliveryAnswer {
                DeliveryAnswer(handled: true)
            }
            func deliver(_ delivery: Delivery, to endpoint: AppEndpoint, completion: @escaping @Sendable (Result<DeliveryAnswer, CourierError>) -> Void) {
                seen.withLock { $0.append(delivery.url) }
                completion(delivery.url.hasSuffix("7") ? .failure(CourierError(.appFailed, "cannot send")) : .success(DeliveryAnswer(handled: true)))
            }
        }
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])], autoCheckIn: false)
        let deliverer = InlineDeliverer()
        let dispatcher = Dispatcher(
            resolver: TableResolver(apps: ["todo": AppDescriptor(bundleID: "com.acme.todolist", launchArguments: ["/bin/sleep", "30"])]),
            launcher: harness.launcher, deliverer: deliverer, configuration: .init(crashLoop: .init(threshold: 100_000)), logger: quietLogger
        )
        defer { for pid in harness.launcher.pids { kill(pid, SIGKILL) } }
        let count = 4000
        let answers = Mutex<[Int: Bool]>([:])
        for i in 0..<count {
            dispatcher.submit(OpenRequest(url: "todo://item/\(i)")) { result in
                answers.withLock { $0[i] = (try? result.get())?.handled ?? false }
            }
        }
        #expect(harness.launcher.count == 1)
        _ = try dispatcher.checkIn(bundleID: "com.acme.todolist", uniqueName: ":t.1")
        // Every answer came in before checkIn returned: the chain ran on this thread, in a loop.
        #expect(answers.withLock { $0.count } == count)
        #expect(deliverer.seen.withLock { $0 } == (0..<count).map { "todo://item/\($0)" })
        #expect(answers.withLock { a in (0..<count).allSatisfy { a[$0] == !"\($0)".hasSuffix("7") } })
    }

    /// courierd logs every open at its default level; the caller's answer must not wait for that
    /// line (formatting, a timestamp, a write to stderr) — the warm path's latency is the answer's.
    @Test func theCallerIsAnsweredBeforeTheRoutingLineIsLogged() async throws {
        let lines = LineRecorder()
        var logger = Logger(label: "org.courier.broker.tests") { _ in lines }
        logger.logLevel = .info
        let harness = Harness(["todo": ("com.acme.todolist", ["/bin/sleep", "30"])], logger: logger)
        defer { for pid in harness.launcher.pids { kill(pid, SIGKILL) } }
        let dispatcher = harness.dispatcher
        _ = try await dispatcher.open(OpenRequest(url: "todo://cold"))
        // The cold open's own line follows its answer: wait for it, then count from there.
        #expect(await eventually { lines.routingLines.count == 1 })
        let linesWhenAnswered = Mutex<[String]?>(nil)
        let answered = AsyncStream<Void>.makeStream()
        let before = lines.routingLines.count
        dispatcher.submit(OpenRequest(url: "todo://warm")) { result in
            linesWhenAnswered.withLock { $0 = lines.routingLines }
            answered.continuation.finish()
        }
        for await _ in answered.stream {}
        #expect(linesWhenAnswered.withLock { $0 }?.count == before, "the routing line was written before the caller had its answer")
        #expect(await eventually { lines.routingLines.count == before + 1 })
        #expect(lines.routingLines.last?.contains("outcome=handled") == true)
    }

    @Test func errorNamesRoundTrip() {
        for code in [CourierError.Code.invalidURL, .noHandler, .launchFailed, .launchTimeout, .declined, .notPermitted, .invalidManifest, .limitsExceeded] {
            let error = CourierError(code, "m")
            #expect(error.dbusName == "org.courier.Error.\(code.rawValue)")
            #expect(CourierError(dbusName: error.dbusName, message: "m") == error)
        }
        let foreign = CourierError(dbusName: "org.freedesktop.DBus.Error.Failed", message: "")
        #expect(foreign.code == .bus)
        #expect(foreign.dbusName == "org.freedesktop.DBus.Error.Failed")
    }
}

/// Keeps the dispatcher's "open …" info lines, in order.
private struct LineRecorder: LogHandler {
    private let lines = Lines()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.all.withLock { $0.append(event.message.description) }
    }
    var routingLines: [String] { lines.all.withLock { $0.filter { $0.hasPrefix("open ") } } }

    private final class Lines: Sendable {
        let all = Mutex<[String]>([])
    }
}
