import BusTestSupport
import Courier
import CourierBroker
import CourierProtocol
import DBus
import Foundation
import Testing
import CourierTools

/// `courier launch`, `restart`, `quit --force`, `disable`/`enable`, `ps ID`, `status ID`, and
/// `open --args/--fresh/--wait-exit`, keep-alive and run-at-load: each on a real private bus, with
/// real app processes and the built `courier`.
@Suite("App control (bus)", .serialized)
struct AppControlTests {
    static let courier = Products.path("courier")

    static func life(_ writer: BrokerFixture.ManifestWriter, _ bundleID: String = "com.acme.life", scheme: String = "life", options: [String] = [], extra: [String: Any] = [:]) throws {
        try LifecycleBusTests.lifecycleApp(writer, bundleID, scheme: scheme, options: options, extra: extra)
    }

    static func events(_ fixture: BrokerFixture, _ bundleID: String = "com.acme.life") -> [String] {
        LifecycleBusTests.events(fixture, bundleID)
    }

    /// Polls an async condition (bounded: 20 s).
    static func eventuallyAsync(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<400 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    // MARK: launch

    @Test func launchStartsAnAppForNothingInParticularAndLeavesARunningOneAlone() async throws {
        let fixture = try await BrokerFixture { try Self.life($0) }
        defer { fixture.tearDown() }
        let launched = try await fixture.run(Self.courier, ["launch", "com.acme.life"])
        #expect(launched.status == 0, "\(launched.error)")
        let pid = try #require(fixture.launcher.pids.first)
        #expect(launched.output == "com.acme.life is running (pid \(pid))\n")
        #expect(Self.events(fixture).contains("finished-launching url=none by-broker=true"))
        let again = try await fixture.run(Self.courier, ["launch", "com.acme.life"])
        #expect(again.status == 0)
        #expect(again.output.contains("is already running (pid \(pid)); nothing was launched"))
        #expect(fixture.launcher.count == 1)
        let row = try #require(try await LifecycleEdgeTests.psRow(fixture, "com.acme.life"))
        #expect((row["started_by"] as? String)?.hasPrefix(":") == true)
    }

    @Test func launchOfAnUnknownOrFailingAppSaysWhy() async throws {
        let fixture = try await BrokerFixture {
            try Self.life($0)
            try Self.life($0, "com.acme.broken", scheme: "broken", options: ["--exit-at-once", "3"])
        }
        defer { fixture.tearDown() }
        let unknown = try await fixture.run(Self.courier, ["launch", "com.acme.nothing"])
        #expect(unknown.status == 3)
        #expect(unknown.error.contains("no app with bundle id com.acme.nothing is registered"))
        let broken = try await fixture.run(Self.courier, ["launch", "com.acme.broken"])
        #expect(broken.status == 4)
        #expect(broken.error.contains("exited with status 3 before checking in"), "\(broken.error)")
        // Why it ended is kept: `courier status ID` shows the exit status.
        let status = try await fixture.run(Self.courier, ["status", "com.acme.broken"])
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output.contains("exited with status 3 before checking in"), "\(status.output)")
        // With the last lines it printed.
        #expect(status.output.contains("      | exiting at once with status 3"), "\(status.output)")
        let ps = try await fixture.run(Self.courier, ["ps", "com.acme.broken", "--json"])
        let end = try #require(((try Self.json(ps.output) as? [[String: Any]])?.first?["ends"] as? [[String: Any]])?.last)
        #expect(end["log"] as? [String] == ["exiting at once with status 3"])
        #expect(end["exit_code"] as? Int == 3)
    }

    @Test func launchWithArgumentsPassesThemAfterTheLaunchCommand() async throws {
        let fixture = try await BrokerFixture { try Self.life($0, options: ["--record-arguments"]) }
        defer { fixture.tearDown() }
        let launched = try await fixture.run(Self.courier, ["launch", "com.acme.life", "--args", "--one", "two words"])
        #expect(launched.status == 0, "\(launched.error)")
        #expect(Self.events(fixture).contains("arguments --one two words"))
    }

    // MARK: restart

    @Test func restartEndsWithNoticeStartsAgainAndHoldsAnOpenThatRacesIt() async throws {
        let fixture = try await BrokerFixture { try Self.life($0, options: ["--will-terminate-delay-ms", "400"]) }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let changes = try await fixture.client.stateChanges(of: "com.acme.life")
        let restart = Task { try await fixture.run(Self.courier, ["restart", "com.acme.life"]) }
        #expect(await LifecycleBusTests.reach("terminating", changes) != nil)
        // Sent while the old instance is terminating: held, and delivered to the new one.
        #expect(try await fixture.client.open("life://racing").handled)
        let restarted = try await restart.value
        #expect(restarted.status == 0, "\(restarted.error)")
        #expect(fixture.launcher.count == 2)
        let (first, second) = (fixture.launcher.pids[0], fixture.launcher.pids[1])
        #expect(restarted.output == "com.acme.life is running again (pid \(second))\n")
        let events = Self.events(fixture)
        #expect(events.contains("will-terminate-done \(first)"))
        #expect(events.last == "open life://racing")
        #expect(events.firstIndex(of: "launch \(second)")! < events.firstIndex(of: "open life://racing")!)
        // The old instance's end says who asked for it.
        let row = try #require(try await LifecycleEdgeTests.psRow(fixture, "com.acme.life"))
        let end = try #require((row["ends"] as? [[String: Any]])?.last)
        #expect((end["requested_by"] as? String)?.hasPrefix("restart by :") == true)
        #expect(end["pid"] as? Int == Int(first))
    }

    // MARK: quit --force

    @Test func quitForceKillsWithoutNoticeAndTheEndIsRecordedAsForced() async throws {
        let fixture = try await BrokerFixture { try Self.life($0, options: ["--hang-on", "hang"]) }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let pid = try #require(fixture.launcher.pids.first)
        let client = fixture.client
        let hung = Task { () -> CourierError? in
            do { _ = try await client.open("life://hang"); return nil } catch { return error as? CourierError }
        }
        #expect(await eventually { Self.events(fixture).contains("hang life://hang") })
        let quit = try await fixture.run(Self.courier, ["quit", "--force", "com.acme.life"])
        #expect(quit.status == 0, "\(quit.error)")
        #expect(fixture.launcher.exitStatus(pid) == .signaled(SIGKILL))
        #expect(await hung.value?.code == .appFailed)
        // No notice: the app never heard of its end.
        #expect(!Self.events(fixture).contains { $0.hasPrefix("will-terminate") })
        let ps = try await fixture.run(Self.courier, ["ps", "com.acme.life", "--json"])
        let rows = try #require(try Self.json(ps.output) as? [[String: Any]])
        #expect(rows.count == 1)
        let end = try #require((rows.first?["ends"] as? [[String: Any]])?.last)
        #expect(end["forced"] as? Bool == true)
        #expect(end["signal"] as? Int == Int(SIGKILL))
        #expect(end["unanswered"] as? String == "life://hang")
        #expect((end["requested_by"] as? String)?.hasPrefix("quit --force by :") == true)
        #expect((end["lifetime_ms"] as? Int ?? -1) >= 0 && (end["ended_at_ms"] as? Int ?? 0) > 0)
        let status = try await fixture.run(Self.courier, ["status", "com.acme.life"])
        #expect(status.output.contains("SIGKILL, no notice"), "\(status.output)")
        // Not running any more: --force says so and exits 0, like quit.
        let again = try await fixture.run(Self.courier, ["quit", "--force", "com.acme.life"])
        #expect(again.status == 0 && again.output == "com.acme.life is not running\n", "\(again.error)")
    }

    // MARK: ps ID, status ID

    @Test func psAndStatusOfOneApp() async throws {
        let fixture = try await BrokerFixture {
            try Self.life($0)
            try Self.life($0, "com.acme.idle", scheme: "idle")
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let one = try await fixture.run(Self.courier, ["ps", "com.acme.life"])
        #expect(one.status == 0)
        #expect(one.output.split(separator: "\n").count == 2 && one.output.contains("com.acme.life"))
        // Registered, never run: a not-running row.
        let never = try await fixture.run(Self.courier, ["ps", "com.acme.idle", "--json"])
        #expect((try Self.json(never.output) as? [[String: Any]])?.first?["state"] as? String == "not-running")
        #expect(never.output == #"[{"bundle_id":"com.acme.idle","failures":0,"handled":0,"queued":0,"state":"not-running"}]"# + "\n")
        let unknown = try await fixture.run(Self.courier, ["ps", "com.acme.nothing"])
        #expect(unknown.status == 3)
        let unknownStatus = try await fixture.run(Self.courier, ["status", "com.acme.nothing"])
        #expect(unknownStatus.status == 3)
        let status = try await fixture.run(Self.courier, ["status", "com.acme.life", "--json"])
        #expect(status.status == 0, "\(status.error)")
        let object = try #require(try Self.json(status.output) as? [String: Any])
        #expect((object["process"] as? [String: Any])?["state"] as? String == "idle")
        #expect((object["application"] as? [String: Any])?["bundle_id"] as? String == "com.acme.life")
    }

    // MARK: open --args, --fresh, --wait-exit

    @Test func openArgumentsGoToALaunchAndARunningAppThatIgnoresThemIsNamed() async throws {
        let fixture = try await BrokerFixture {
            try Self.life($0, options: ["--record-arguments"])
            try Self.life($0, "com.acme.taker", scheme: "taker", options: ["--accept-arguments"])
        }
        defer { fixture.tearDown() }
        let first = try await fixture.run(Self.courier, ["open", "life://one", "--args", "-x", "y"])
        #expect(first.status == 0, "\(first.error)")
        #expect(Self.events(fixture).contains("arguments -x y"))
        #expect(first.error.isEmpty)
        let second = try await fixture.run(Self.courier, ["open", "life://two", "--args", "-z"])
        #expect(second.status == 0)
        #expect(second.error.contains("was already running and ignored the arguments given with --args"), "\(second.error)")
        #expect(Self.events(fixture).contains("handle-arguments -z"))
        #expect(try await fixture.client.open("taker://one").handled)
        let taken = try await fixture.run(Self.courier, ["open", "taker://two", "--args", "-q"])
        #expect(taken.status == 0 && taken.error.isEmpty, "\(taken.error)")
        #expect(Self.events(fixture, "com.acme.taker").contains("handle-arguments -q"))
    }

    @Test func openFreshLaunchesWithoutTheSavedState() async throws {
        let fixture = try await BrokerFixture { try Self.life($0) }
        defer { fixture.tearDown() }
        _ = try await LifecycleBusTests.openThenQuit(fixture)
        let fresh = try await fixture.run(Self.courier, ["open", "--fresh", "life://two"])
        #expect(fresh.status == 0 && fresh.error.isEmpty, "\(fresh.error)")
        #expect(!Self.events(fixture).contains { $0.hasPrefix("restored") })
        // Already running: the open is delivered, and the user is told --fresh did not apply.
        let again = try await fixture.run(Self.courier, ["open", "--fresh", "life://two-again"])
        #expect(again.status == 0)
        #expect(again.error.contains("was already running, so -F/--fresh did not apply"), "\(again.error)")
        _ = try await fixture.run(Self.courier, ["quit", "com.acme.life"])
        #expect(try await fixture.client.open("life://three").handled)
        #expect(Self.events(fixture).contains { $0.hasPrefix("restored") })
    }

    @Test func openWaitExitReturnsWhenTheAppHasEnded() async throws {
        let fixture = try await BrokerFixture { try Self.life($0) }
        defer { fixture.tearDown() }
        let opener = try BackgroundProcess(Self.courier, ["open", "--wait-exit", "life://one"], environment: fixture.environment, outputIn: fixture.root, name: "wait-exit")
        #expect(await eventually { Self.events(fixture).contains("open life://one") })
        #expect(opener.exitStatus == nil)
        let quit = try await fixture.run(Self.courier, ["quit", "com.acme.life"])
        #expect(quit.status == 0)
        #expect(await opener.wait(timeout: .seconds(20)) == 0)
    }

    // MARK: keep-alive, run-at-load

    @Test func aKeepAliveAppIsRelaunchedAfterACrashAndLeftDownAfterAQuit() async throws {
        let fixture = try await BrokerFixture { try Self.life($0, extra: ["CourierKeepAlive": true]) }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("life://one").handled)
        let first = try #require(fixture.launcher.pids.first)
        kill(first, SIGKILL)
        #expect(await eventually { fixture.launcher.count == 2 && Self.events(fixture).contains("finished-launching url=none by-broker=true") })
        let row = try #require(try await LifecycleEdgeTests.psRow(fixture, "com.acme.life"))
        #expect(row["keep_alive"] as? Bool == true)
        #expect(row["started_by"] as? String == "keep-alive")
        let quit = try await fixture.run(Self.courier, ["quit", "com.acme.life"])
        #expect(quit.status == 0)
        // A check that nothing happens: a relaunch that should not come has this long to show.
        try await Task.sleep(for: .milliseconds(500))
        #expect(fixture.launcher.count == 2)
    }

    @Test func aKeepAliveAppThatExitsAtOnceIsMarkedFailed() async throws {
        let fixture = try await BrokerFixture { try Self.life($0, options: ["--exit-at-once", "2"], extra: ["CourierKeepAlive": true]) }
        defer { fixture.tearDown() }
        let launched = try await fixture.run(Self.courier, ["launch", "com.acme.life"])
        #expect(launched.status == 4)
        #expect(await Self.eventuallyAsync { (try? await LifecycleEdgeTests.psRow(fixture, "com.acme.life"))??["failed"] as? Bool == true })
        let attempts = fixture.launcher.count
        #expect(attempts == CrashLoopPolicy().keepAliveAttempts)
        let ps = try await fixture.run(Self.courier, ["ps", "com.acme.life"])
        #expect(ps.output.contains("failed"), "\(ps.output)")
        let status = try await fixture.run(Self.courier, ["status", "com.acme.life"])
        #expect(status.output.contains("keep-alive gave up"), "\(status.output)")
    }

    /// Real `courierd` processes: disable outlasts the broker; a run-at-load app starts with it.
    @Test func disableTakesAnAppOutOfRoutingAcrossBrokerRestartsAndEnableBringsItBack() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("control", isDirectory: true)
        let manifests = root.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        let writer = BrokerFixture.ManifestWriter(folder: manifests)
        try Self.life(writer)
        try Self.life(writer, "com.acme.second", scheme: "life")
        try Self.life(writer, "com.acme.early", scheme: "early", extra: ["CourierRunAtLoad": true])
        var environment = bus.environment(homesIn: root)
        environment["PATH"] = Products.folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["COURIER_MANIFEST_PATH"] = manifests.path
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        func courier(_ arguments: [String]) async throws -> BackgroundProcess.Completed {
            try await BackgroundProcess.run(Self.courier, arguments, environment: environment)
        }
        func startBroker() async throws -> BackgroundProcess {
            try await startCourierd(["--manifests", manifests.path, "--no-desktop-entries", "--log-level", "warning"], environment: environment, outputIn: root, client: client)
        }
        var courierd = try await startBroker()
        // Run at load: started with the broker, before any URL.
        #expect(await Self.eventuallyAsync { (try? await client.processes().first { $0[CourierKey.bundleID] == "com.acme.early" }?[CourierKey.state]) == "idle" })
        let chosen = try await client.open("life://one")
        #expect(chosen.bundleID == "com.acme.life")
        let disabled = try await courier(["disable", "com.acme.life"])
        #expect(disabled.status == 0, "\(disabled.errors)")
        #expect(disabled.output.contains("com.acme.life is disabled"), "\(disabled.output)")
        #expect(try await client.open("life://two").bundleID == "com.acme.second")
        let explain = try await courier(["handlers", "life", "--explain"])
        #expect(explain.output.contains("com.acme.life — not routed to: the user disabled it"), "\(explain.output)")
        let named = try await courier(["open", "-b", "com.acme.life", "life://three"])
        #expect(named.status == 7)
        #expect(named.errors.contains("com.acme.life is disabled"), "\(named.errors)")
        let launch = try await courier(["launch", "com.acme.life"])
        #expect(launch.status == 7)
        // A scheme only a disabled app claims: refused naming it, not handed to the desktop.
        #expect(try await courier(["disable", "com.acme.early"]).status == 0)
        let only = try await courier(["open", "early://x"])
        #expect(only.status == 7)
        #expect(only.errors.contains("com.acme.early claims it but is disabled"), "\(only.errors)")
        // A new broker reads it from defaults.json.
        courierd.signal(SIGTERM)
        _ = await courierd.wait(timeout: .seconds(20))
        courierd = try await startBroker()
        defer { courierd.kill() }
        #expect(try await client.open("life://four").bundleID == "com.acme.second")
        let ps = try await courier(["ps", "com.acme.life", "--json"])
        #expect(ps.output.contains("\"disabled\":true"), "\(ps.output)")
        let enabled = try await courier(["enable", "com.acme.life"])
        #expect(enabled.status == 0, "\(enabled.errors)")
        #expect(try await client.open("life://five").bundleID == "com.acme.life")
        for app in try await client.processes() {
            if let pid = app[CourierKey.pid] { kill(Int32(bitPattern: pid), SIGKILL) }
        }
    }

    // MARK: Attacks

    /// A Courier app (a real python3 `dbus` process the broker launched and verified) tries to end
    /// another app, start it with arguments of its choosing, or pass arguments with a URL: each is
    /// refused, and the target runs on untouched.
    @Test func anAppMayNotKillLaunchRestartOrPassArgumentsToAnotherApp() async throws {
        let attempts = ["kill:com.acme.echo", "launch:com.acme.echo", "restart:com.acme.echo", "args:echo://with-arguments"]
        let fixture = try await CallerRuleBusTests.fixture(attempts: attempts)
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("echo://warm").handled)
        let echo = try #require(fixture.launcher.pids.first)
        #expect(try await fixture.client.open("notes://start").handled)
        let calls = try CallerRuleBusTests.calls(fixture)
        for attempt in attempts { #expect(calls[attempt] == "org.courier.Error.NotPermitted", "\(attempt): \(calls)") }
        #expect(fixture.launcher.exitStatus(echo) == nil)
        #expect(fixture.launcher.count == 2)
        let row = try #require(try await LifecycleEdgeTests.psRow(fixture, "com.acme.echo"))
        #expect(row["pid"] as? Int == Int(echo) && row["handled"] as? Int == 1)
    }

    // MARK: Man page, completions

    @Test func theNewCommandsAndOptionsAreInTheCompletionsAndTheManPage() async throws {
        let fixture = try await BrokerFixture { try Self.life($0) }
        defer { fixture.tearDown() }
        let bash = try await fixture.run(Self.courier, ["--generate-completion-script", "bash"])
        for command in ["launch", "restart", "disable", "enable", "ps", "status"] {
            #expect(bash.output.contains("---completion \(command) -- positional@0"), "\(command)")
        }
        for option in ["--args", "--fresh", "--wait-exit", "--force"] { #expect(bash.output.contains(option), "\(option)") }
        // What the scripts run: the registered bundle ids.
        var offline = fixture.environment
        offline["COURIER_MANIFEST_PATH"] = fixture.manifests.path
        for command in ["launch", "restart", "disable", "enable", "status"] {
            let ids = try await BackgroundProcess.run(Self.courier, ["---completion", command, "--", "positional@0", "2", "7", "courier", command, "com.acm"], environment: offline)
            #expect(ids.output == "com.acme.life\n", "\(command): \(ids.output) \(ids.errors)")
        }
        let manual = Products.path("generate-manual")
        guard FileManager.default.isExecutableFile(atPath: manual) else { return }
        let folder = fixture.root.appendingPathComponent("man")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // As scripts/install makes it: from the `courier` users run.
        let generated = try await fixture.run(manual, [Self.courier, "--output-directory", folder.path])
        #expect(generated.status == 0, "\(generated.error)")
        let page = (try? String(contentsOf: folder.appendingPathComponent("courier.1"), encoding: .utf8)) ?? ""
        for text in ["launch", "restart", "disable", "enable", "wait-exit", "fresh", "force"] { #expect(page.contains(text), "\(text) is not in the man page") }
    }
}
