import BusTestSupport
import Courier
import CourierBroker
import CourierProtocol
import DBus
import Foundation
import Testing
import CourierTools

/// The app life cycle on a real bus with real app processes (docs/lifecycle.md): execution states
/// and their signal, termination with notice (WillTerminate, deadline, SIGTERM, SIGKILL), the
/// idle-timeout and memory-pressure policies, requests held during termination, and state
/// preservation and restoration — the todolist example and `courier-test-app lifecycle`.
@Suite("Lifecycle (bus)", .serialized)
struct LifecycleBusTests {
    /// The lifecycle test app under `bundleID`, claiming `scheme`.
    static func lifecycleApp(_ writer: BrokerFixture.ManifestWriter, _ bundleID: String, scheme: String, options: [String] = [], extra: [String: Any] = [:]) throws {
        try writer.write(bundleID, schemes: [scheme], arguments: [Products.path("courier-test-app"), "lifecycle"] + options, extra: extra)
    }

    /// Waits (bounded) for `bundleID` to reach `state` on the `ApplicationStateChanged` stream.
    static func reach(_ state: String, _ changes: AsyncStream<ApplicationStateChange>, bundleID: String? = nil) async -> ApplicationStateChange? {
        let stream = changes
        return await withTaskGroup(of: ApplicationStateChange?.self) { group in
            group.addTask {
                for await change in stream where change.state == state && (bundleID == nil || change.bundleID == bundleID) { return change }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Launches `com.acme.life` with one URL, quits it, and returns its pid and how it ended.
    static func openThenQuit(_ fixture: BrokerFixture) async throws -> (Int32, CourierBroker.ExitStatus?) {
        #expect(try await fixture.client.open("life://one").handled)
        let changes = try await fixture.client.stateChanges(of: "com.acme.life")
        try await fixture.client.terminate(bundleID: "com.acme.life")
        #expect(await reach("not-running", changes) != nil)
        let pid = try #require(fixture.launcher.pids.first)
        #expect(await eventually { fixture.launcher.exitStatus(pid) != nil })
        return (pid, fixture.launcher.exitStatus(pid))
    }

    static func events(_ fixture: BrokerFixture, _ bundleID: String) -> [String] {
        let path = fixture.container(bundleID).appendingPathComponent("events").path
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func anIdleTodolistIsTerminatedWithNoticeAndRestoredOnItsNextLaunch() async throws {
        let fixture = try await BrokerFixture(termination: .init(idleTimeout: .milliseconds(300), sweepInterval: .milliseconds(50))) { try $0.todolist() }
        defer { fixture.tearDown() }
        let changes = try await fixture.client.stateChanges(of: "com.acme.todolist")
        let first = try await fixture.client.open("todolist://www.acme.com?Quarterly%20Report#200806231300")
        #expect(first.handled && first.reply["last-shown"] == nil)
        #expect(await Self.reach("idle", changes) != nil)
        #expect(await Self.reach("terminating", changes) != nil)
        #expect(await Self.reach("not-running", changes) != nil)

        // The todolist preserved its session when told: atomically written, the user's alone.
        let archive = fixture.container("com.acme.todolist").appendingPathComponent("SavedState/state.archive").path
        var info = stat()
        #expect(stat(archive, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(fixture.container("com.acme.todolist").appendingPathComponent("SavedState").path, &info) == 0 && info.st_mode & 0o777 == 0o700)

        // The next URL relaunches it; it shows where the person was.
        let second = try await fixture.client.open("todolist://www.acme.com?Board%20Meeting#today")
        #expect(second.handled)
        #expect(second.reply["last-shown"]?.stringValue == "Quarterly Report")
        #expect(fixture.launcher.count == 2)
        #expect(fixture.todoItems().count == 2)
    }

    @Test func memoryPressureTerminatesTheLeastRecentlyUsedIdleAppFirst() async throws {
        let pressure = try TemporaryFile(contents: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        let policy = TerminationPolicy(memoryPressure: MemoryPressurePolicy(threshold: 10, source: PressureStallFile(path: pressure.path)), sweepInterval: .seconds(3600))
        let fixture = try await BrokerFixture(termination: policy) { writer in
            for name in ["a", "b", "c"] { try Self.lifecycleApp(writer, "com.acme.life\(name)", scheme: "life\(name)") }
            try Self.lifecycleApp(writer, "com.acme.lifekeep", scheme: "lifekeep", extra: ["CourierTerminatesWhenIdle": false])
        }
        defer { fixture.tearDown() }
        for scheme in ["lifekeep", "lifea", "lifeb", "lifec", "lifea"] {
            #expect(try await fixture.client.open("\(scheme)://x").handled)
        }
        let changes = try await fixture.client.stateChanges()
        fixture.service.dispatcher.sweep()   // no pressure: nothing happens
        try pressure.write("some avg10=42.50 avg60=20.00 avg300=5.00 total=123456\nfull avg10=3.00 avg60=1.00 avg300=0.00 total=1000\n")
        fixture.service.dispatcher.sweep()
        #expect(await Self.reach("terminating", changes)?.bundleID == "com.acme.lifeb")
        fixture.service.dispatcher.sweep()
        #expect(await Self.reach("terminating", changes)?.bundleID == "com.acme.lifec")
        try pressure.write("some avg10=0.00 avg60=20.00 avg300=5.00 total=123456\nfull avg10=0.00 avg60=1.00 avg300=0.00 total=1000\n")
        fixture.service.dispatcher.sweep()
        let states = Dictionary(uniqueKeysWithValues: fixture.service.dispatcher.statuses().map { ($0.bundleID, $0.state.name) })
        #expect(states["com.acme.lifea"] == "idle")
        #expect(states["com.acme.lifekeep"] == "idle")   // opted out: never a candidate
    }

    @Test func theNoticeAndItsDeadlineAreHonouredThenSIGTERM() async throws {
        let fixture = try await BrokerFixture { try Self.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--will-terminate-delay-ms", "400"]) }
        defer { fixture.tearDown() }
        let (pid, status) = try await Self.openThenQuit(fixture)
        // The delegate ran to its end (400 ms) before the broker signalled: SIGTERM, not SIGKILL.
        #expect(Self.events(fixture, "com.acme.life").suffix(2) == ["will-terminate \(pid)", "will-terminate-done \(pid)"])
        #expect(status == .signaled(SIGTERM))
    }

    @Test func anAppThatOverrunsItsDeadlineAndIgnoresSIGTERMIsKilled() async throws {
        let policy = TerminationPolicy(noticeDeadline: .milliseconds(300))
        let fixture = try await BrokerFixture(termination: policy) {
            try Self.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--will-terminate-delay-ms", "60000", "--ignore-sigterm"])
        }
        defer { fixture.tearDown() }
        let (pid, status) = try await Self.openThenQuit(fixture)
        #expect(status == .signaled(SIGKILL))
        #expect(Self.events(fixture, "com.acme.life").last == "will-terminate \(pid)")
    }

    @Test func requestsArrivingWhileTerminatingWaitAndGoToTheRelaunchedApp() async throws {
        let fixture = try await BrokerFixture { try Self.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--will-terminate-delay-ms", "500"]) }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let changes = try await fixture.client.stateChanges(of: "com.acme.life")
        try await fixture.client.terminate(bundleID: "com.acme.life")
        #expect(await Self.reach("terminating", changes) != nil)
        let client = fixture.client
        let two = Task { try await client.open("life://two") }
        // "two" waits in the broker's queue before "three" is sent: their order is the bus's, not a race's.
        #expect(await AppControlTests.eventuallyAsync { (try? await LifecycleEdgeTests.psRow(fixture, "com.acme.life"))?["queued"] as? Int ?? 0 >= 1 })
        let three = Task { try await client.open("life://three") }
        #expect(try await two.value.handled)
        #expect(try await three.value.handled)
        #expect(fixture.launcher.count == 2)
        let (first, second) = (fixture.launcher.pids[0], fixture.launcher.pids[1])
        #expect(Self.events(fixture, "com.acme.life") == [
            "launch \(first)", "open life://one", "will-terminate \(first)", "will-terminate-done \(first)",
            "launch \(second)", "restored life://one", "open life://two", "open life://three",
        ])
    }

    @Test func aCrashIsNotATerminationAndIsNotRestored() async throws {
        let fixture = try await BrokerFixture { try Self.lifecycleApp($0, "com.acme.life", scheme: "life") }
        defer { fixture.tearDown() }
        let changes = try await fixture.client.stateChanges(of: "com.acme.life")
        #expect(try await fixture.client.open("life://one").handled)
        try await fixture.client.terminate(bundleID: "com.acme.life")
        #expect(await Self.reach("not-running", changes) != nil)
        #expect(try await fixture.client.open("life://two").handled)   // restored from "one"
        let archive = fixture.container("com.acme.life").appendingPathComponent("SavedState/state.archive").path
        #expect(FileManager.default.fileExists(atPath: archive))
        kill(fixture.launcher.pids[1], SIGKILL)
        #expect(await Self.reach("not-running", changes) != nil)
        #expect(!FileManager.default.fileExists(atPath: archive))
        #expect(try await fixture.client.open("life://three").handled)
        let events = Self.events(fixture, "com.acme.life")
        #expect(events.filter { $0.hasPrefix("restored") } == ["restored life://one"])
        #expect(events.last == "open life://three")
    }

    @Test func anArchiveFromAnotherVersionIsRefused() async throws {
        let fixture = try await BrokerFixture { try Self.lifecycleApp($0, "com.acme.life", scheme: "life", options: ["--version", "2"]) }
        defer { fixture.tearDown() }
        var coder = RestorableStateCoder(bundleVersion: "1")
        try coder.encode(["life://old"], forKey: "handled")
        let folder = fixture.container("com.acme.life").appendingPathComponent("SavedState")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(try coder.archived(bundleID: "com.acme.life")).write(to: folder.appendingPathComponent("state.archive"))
        #expect(try await fixture.client.open("life://new").handled)
        let events = Self.events(fixture, "com.acme.life")
        #expect(events.contains("refused 1"))
        #expect(!events.contains { $0.hasPrefix("restored") })
    }

    @Test func aSaveKilledMidwayLeavesTheWholePreviousArchive() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let container = bus.directory.appendingPathComponent("container", isDirectory: true)
        var environment = bus.environment(homesIn: bus.directory)
        environment["COURIER_CONTAINER"] = container.path
        environment["COURIER_BUNDLE_ID"] = "com.acme.saver"
        let archive = container.appendingPathComponent("SavedState/state.archive")
        let size = 256 * 1024
        /// The archive as it is now: it must always be one whole save (whatever the saver is doing).
        func wholeSave() throws -> Int {
            let coder = try RestorableStateCoder(archive: [UInt8](try Data(contentsOf: archive)), bundleID: "com.acme.saver")
            let number = try #require(try coder.decode(Int.self, forKey: "number"))
            let payload = try #require(coder.bytes(forKey: "payload"))
            #expect(payload.count == size)
            #expect(payload.allSatisfy { $0 == UInt8(truncatingIfNeeded: number) })
            return number
        }
        for round in 0..<12 {
            unlink(archive.path)
            let saver = try BackgroundProcess(Products.path("courier-test-app"), ["save-loop", "\(size)"], environment: environment, outputIn: bus.directory, name: "saver-\(round)")
            // Let it overwrite its archive a few times (read whole each time), then kill it midway.
            #expect(await eventually { FileManager.default.fileExists(atPath: archive.path) })
            let target = 1 + round % 4
            #expect(await eventually { ((try? wholeSave()) ?? 0) >= target })
            try await Task.sleep(for: .microseconds(200 + (round * 997) % 3000))
            saver.signal(SIGKILL)
            _ = await saver.wait()
            #expect(try wholeSave() >= target)
        }
    }

    @Test func courierPsAndQuitShowAndEndAnAppsLife() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?Ps#today").handled)
        let ps = try await fixture.run(Products.path("courier"), ["ps", "--json"])
        #expect(ps.status == 0, "\(ps.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(ps.output.utf8)) as? [[String: Any]])
        let row = try #require(rows.first { $0["bundle_id"] as? String == "com.acme.todolist" })
        #expect(row["state"] as? String == "idle")
        #expect(row["pid"] as? Int == Int(fixture.launcher.pids[0]))
        #expect(row["handled"] as? Int == 1)
        #expect(row["queued"] as? Int == 0)
        #expect((row["rss_bytes"] as? Int ?? 0) > 0)
        #expect((row["started_by"] as? String ?? "").hasPrefix(":"))   // the client's unique name
        // The todolist is on the Courier library: it attaches its direct link after checking in.
        #expect(await eventually { !fixture.service.directlyLinked.isEmpty })
        let linked = try await fixture.run(Products.path("courier"), ["ps", "--json"])
        let linkedRows = try #require(try JSONSerialization.jsonObject(with: Data(linked.output.utf8)) as? [[String: Any]])
        #expect(linkedRows.first { $0["bundle_id"] as? String == "com.acme.todolist" }?["delivery"] as? String == "link")
        let table = try await fixture.run(Products.path("courier"), ["ps"])
        #expect(table.output.split(separator: "\n").first?.hasPrefix("BUNDLE-ID") == true)
        #expect(table.output.split(separator: "\n").first { $0.hasPrefix("com.acme.todolist") }?.hasSuffix("link") == true, "\(table.output)")

        let quit = try await fixture.run(Products.path("courier"), ["quit", "com.acme.todolist"])
        #expect(quit.status == 0, "\(quit.error)")
        #expect(fixture.service.dispatcher.state(of: "com.acme.todolist") == .notRunning)
        // Quitting what is not running is done already; quitting what is not registered is "no such app".
        let again = try await fixture.run(Products.path("courier"), ["quit", "com.acme.todolist"])
        #expect(again.status == 0 && again.output.contains("com.acme.todolist is not running"), "\(again)")
        let unknown = try await fixture.run(Products.path("courier"), ["quit", "com.acme.nothing"])
        #expect(unknown.status == 3 && unknown.error.contains("no app com.acme.nothing is registered"), "\(unknown)")
    }

    /// Cross-check with a tool nobody here wrote: `gdbus` sees the signal and the method.
    @Test func gdbusSeesStateChangesAndListProcesses() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let monitor = try BackgroundProcess("/usr/bin/gdbus", ["monitor", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker"], environment: fixture.environment, outputIn: fixture.root, name: "gdbus-monitor")
        defer { monitor.kill() }
        // gdbus subscribes, then asks who owns the name: once it prints the answer, the bus has its match.
        #expect(await eventually { monitor.output.contains("The name org.courier.Broker is owned by") }, "\(monitor.output)")
        #expect(try await fixture.client.open("todolist://www.acme.com?Gdbus#today").handled)
        #expect(await eventually { monitor.output.contains("ApplicationStateChanged ('com.acme.todolist', 'idle'") })
        #expect(monitor.output.contains("ApplicationStateChanged ('com.acme.todolist', 'launching'"))
        let call = try await fixture.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker", "--method", "org.courier.Broker1.ListProcesses"])
        #expect(call.output.contains("'state': <'idle'>"), "\(call.output)")
    }
}

/// Waits (bounded) until `condition` holds; for process side effects, not timing claims.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A real file a test rewrites (the memory-pressure source's stand-in for /proc/pressure/memory).
final class TemporaryFile: Sendable {
    let path: String

    init(contents: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)").path
        try write(contents)
    }

    func write(_ contents: String) throws {
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
    }

    deinit { unlink(path) }
}

/// The policies as a user sets them: `courierd` options and `courierd.conf`, in the real daemon.
@Suite("Lifecycle (courierd)", .serialized)
struct LifecycleDaemonTests {
    /// `courierd.conf` where a daemon with `bus.environment(homesIn: root)` reads it.
    static func writeConfig(_ text: String, in root: URL) throws {
        let config = root.appendingPathComponent("config/courier", isDirectory: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try text.write(to: config.appendingPathComponent("courierd.conf"), atomically: true, encoding: .utf8)
    }

    @Test func theConfigFileTurnsTheIdleTimeoutOnInTheDaemon() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("daemon", isDirectory: true)
        let manifests = root.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: manifests).todolist()
        try Self.writeConfig("# terminate idle apps quickly\nidle-timeout = 0.5\ntermination-notice = 2\n", in: root)
        let environment = bus.environment(homesIn: root)
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--manifests", manifests.path, "--no-desktop-entries"], environment: environment, outputIn: root, client: client)
        defer { courierd.kill() }
        let changes = try await client.stateChanges(of: "com.acme.todolist")
        #expect(try await client.open("todolist://www.acme.com?Idle#today").handled)
        #expect(await LifecycleBusTests.reach("terminating", changes) != nil)
        #expect(await LifecycleBusTests.reach("not-running", changes) != nil)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("data/courier/containers/com.acme.todolist/SavedState/state.archive").path))
    }

    @Test func aBadConfigFileIsRefusedSayingWhereAndWhat() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("daemon", isDirectory: true)
        try Self.writeConfig("idle-timeout = 300\nidle-timout = 5\n", in: root)
        let run = try await BackgroundProcess.run(Products.path("courierd"), ["--no-desktop-entries"], environment: bus.environment(homesIn: root))
        #expect(run.status != 0)
        #expect(run.errors.contains("courierd.conf:2: unknown key 'idle-timout'"), "\(run.errors)")
        let negative = try await BackgroundProcess.run(Products.path("courierd"), ["--no-desktop-entries", "--idle-timeout", "-3"], environment: bus.environment(homesIn: root))
        #expect(negative.status != 0)
    }

    /// The daemon reads the kernel's own file: it starts with the policy on when the kernel has
    /// PSI, and refuses to, saying why, when it has not.
    @Test func memoryPressureReadsTheKernelsPressureFile() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("daemon", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--no-desktop-entries", "--memory-pressure", "50"], environment: bus.environment(homesIn: root), outputIn: root, client: client)
        defer { courierd.kill() }
        if (try? MemoryPressure(parsing: String(contentsOfFile: "/proc/pressure/memory", encoding: .utf8))) != nil {
            #expect(await client.brokerIsRunning(), "\(courierd.errors)")
        } else {
            #expect(await courierd.wait() != 0)
            #expect(courierd.errors.contains("/proc/pressure/memory"))
        }
    }
}
