import BusTestSupport
import Courier
import CourierBroker
import CourierNames
import DBus
import Foundation
import Testing

/// The broker on a real dbus-daemon with real app processes: the issue's proof.
@Suite("Broker on a private bus", .serialized)
struct BrokerBusTests {
    static let quarterly = "todolist://www.acme.com?Quarterly%20Report#200806231300"

    @Test func coldOpenLaunchesTheAppOnceAndWarmOpenDoesNotLaunch() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let cold = try await fixture.client.open(Self.quarterly)
        #expect(cold.handled)
        #expect(cold.bundleID == "com.acme.todolist")
        #expect(cold.reply["task"]?.stringValue == "Quarterly Report")
        #expect(cold.reply["due"]?.stringValue == "2008-06-23 13:00")
        #expect(fixture.launcher.count == 1)
        let warm = try await fixture.client.open("todolist://www.acme.com?Second%20Task#today")
        #expect(warm.handled)
        #expect(fixture.launcher.count == 1)
        let items = fixture.todoItems()
        #expect(items.map { $0["task"] } == ["Quarterly Report", "Second Task"])
        #expect(items.first?["due"] == "2008-06-23 13:00")
        // `todolist list` from a shell reads the same container.
        let list = try await fixture.run(Products.path("todolist"), ["list"])
        #expect(list.output.contains("Quarterly Report — due 2008-06-23 13:00"))
    }

    @Test func twoHundredConcurrentOpensLaunchAColdAppOnceAndKeepPerSenderOrderColdAndWarm() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let script = PythonPeers.path("ordered_opens.py")
        let result = try await fixture.run(systemPython, [script, "4", "50"])
        #expect(result.output.contains("\"ok\": 200"), "\(result.output) \(result.error)")
        #expect(fixture.launcher.count == 1)
        let tasks = fixture.todoItems().compactMap { $0["task"] }
        #expect(tasks.count == 200)
        #expect(Set(tasks).count == 200)
        for connection in 0..<4 {
            let mine = tasks.filter { $0.hasPrefix("c\(connection)-") }
            #expect(mine == mine.sorted() && mine.count == 50)
        }
        // Warm, from 4 new connections: each one's first calls wait in the broker's intake for its
        // pid, later ones are submitted straight from the bus thread; their order still holds.
        let warm = try await fixture.run(systemPython, [script, "4", "50", "w"])
        #expect(warm.output.contains("\"ok\": 200"), "\(warm.output) \(warm.error)")
        #expect(fixture.launcher.count == 1)
        let warmTasks = fixture.todoItems().compactMap { $0["task"] }.filter { $0.hasPrefix("w") }
        #expect(warmTasks.count == 200)
        for connection in 0..<4 {
            let mine = warmTasks.filter { $0.hasPrefix("w\(connection)-") }
            #expect(mine == mine.sorted() && mine.count == 50)
        }
    }

    @Test func launchFailuresAreAnsweredAndTheBrokerKeepsServing() async throws {
        let fixture = try await BrokerFixture(launchTimeout: .milliseconds(700)) { writer in
            try writer.todolist()
            try writer.write("com.acme.missing", schemes: ["missing"], arguments: ["/nonexistent/courier-app"])
            try writer.write("com.acme.quitter", schemes: ["quitter"], arguments: ["/bin/sh", "-c", "exit 3"])
            try writer.write("com.acme.sleeper", schemes: ["sleeper"], arguments: ["/bin/sleep", "30"])
            try writer.write("com.acme.manual", schemes: ["manual"], arguments: nil)
        }
        defer { fixture.tearDown() }
        let cases: [(String, CourierError.Code, String)] = [
            ("missing://x", .launchFailed, "No such file or directory"),
            ("quitter://x", .launchFailed, "exited with status 3 before checking in"),
            ("sleeper://x", .launchTimeout, "did not check in"),
            ("manual://x", .launchFailed, "CourierLaunchArguments"),
            ("nobody://x", .noHandler, "nobody"),
            ("todolist://www.acme.com?Task#200802301300", .invalidURL, "format"),
            ("not a url", .invalidURL, "not a valid URL"),
        ]
        for (url, code, text) in cases {
            let error = await #expect(throws: CourierError.self) { try await fixture.client.open(url) }
            #expect(error?.code == code, "\(url): \(String(describing: error))")
            #expect(error?.dbusName == "org.courier.Error.\(code.rawValue)")
            #expect(error?.message.contains(text) == true, "\(url): \(error?.message ?? "")")
            #expect(try await fixture.client.open("todolist://www.acme.com?After%20\(code.rawValue)").handled)
        }
        #expect(fixture.todoItems().isEmpty == false)
        // The timed-out process was terminated.
        let sleeper = fixture.launcher.pids.filter { pid in (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains("sleep") == true }
        #expect(sleeper.isEmpty)
    }

    @Test func appDyingWhileHandlingIsAnErrorAndTheNextRequestRelaunchesIt() async throws {
        let fixture = try await BrokerFixture { writer in
            let script = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.crasher", schemes: ["crasher"], arguments: [systemPython, script, "crash"])
        }
        defer { fixture.tearDown() }
        let first = await #expect(throws: CourierError.self) { try await fixture.client.open("crasher://one") }
        #expect(first?.code == .appFailed, "\(String(describing: first))")
        let second = await #expect(throws: CourierError.self) { try await fixture.client.open("crasher://two") }
        #expect(second?.code == .appFailed)
        #expect(fixture.launcher.count == 2)
    }

    @Test func gdbusOpensAURLThroughTheBroker() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let result = try await fixture.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
            "--method", "org.courier.Broker1.OpenURL", Self.quarterly, "{}",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("(true, 'com.acme.todolist'"), "\(result.output)")
        #expect(fixture.todoItems().first?["task"] == "Quarterly Report")
    }

    @Test func anAppRefusesOpenURLFromAnyoneButTheBroker() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        _ = try await fixture.client.open(Self.quarterly)   // launches todolist
        let error = await #expect(throws: DBusError.self) {
            try await fixture.client.connection.call(
                "com.acme.todolist", path: "/com/acme/todolist", interface: "org.courier.Application1", method: "OpenURL",
                [.string("todolist://www.acme.com?Sneaky"), .string("com.acme.mail"), .variant(.string("")), .vardict([:])]
            )
        }
        #expect(error?.name == "org.courier.Error.NotPermitted")
        #expect(fixture.todoItems().count == 1)
    }

    @Test func aCallerSuppliedSourceApplicationIsIgnored() async throws {
        let fixture = try await BrokerFixture { writer in
            let script = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, script, "echo"])
        }
        defer { fixture.tearDown() }
        let script = PythonPeers.path("spoofed_source.py")
        let result = try await fixture.run(systemPython, [script, "echo://hello"])
        #expect(result.status == 0, "\(result.error)")
        // handled, the echo app, and an empty source: the caller is not an app Courier knows.
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "True com.acme.echo []", "\(result.output)")
    }

    @Test func canOpenURLFromAnAppIsLimitedToItsQueriesSchemes() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            let script = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.prober", schemes: ["probe"], arguments: [systemPython, script, "probe"], queries: ["todolist"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.canOpen("todolist://x?y"))   // the shell: not limited
        #expect(try await fixture.client.canOpen("nobody://x") == false)
        _ = try await fixture.client.open("probe://start")   // the app probes right after CheckIn, before answering
        let probe = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.prober/probe.txt").path
        // An unlisted scheme gets a plain "no", as from the guide's canOpenURL (CallerPrivacyTests).
        #expect(try String(contentsOfFile: probe, encoding: .utf8) == "todolist=True notes=False")
    }

    @Test func anAppCallerIsIdentifiedByTheBrokerAsItsSourceApplication() async throws {
        let fixture = try await BrokerFixture { writer in
            let script = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, script, "echo"])
            try writer.write("com.acme.caller", schemes: ["caller"], arguments: [systemPython, script, "caller"])
        }
        defer { fixture.tearDown() }
        _ = try await fixture.client.open("caller://start")   // the caller app opens echo:// before answering
        let answer = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.caller/caller.txt").path
        #expect(try String(contentsOfFile: answer, encoding: .utf8) == "True com.acme.echo [com.acme.caller]")
    }

    @Test func courierOpenExitsWithADistinctStatusPerOutcome() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            try writer.write("com.acme.missing", schemes: ["missing"], arguments: ["/nonexistent/courier-app"])
        }
        defer { fixture.tearDown() }
        let courier = Products.path("courier")
        let cases: [([String], Int32)] = [
            (["open", Self.quarterly], 0),
            (["open", "todolist://www.acme.com?Second#today", "--json"], 0),
            (["open", "todolist://www.acme.com?Bad#200813011300"], 2),
            (["open", "nobody://x"], 3),
            (["open", "missing://x"], 4),
            (["open", "--dry-run", "todolist://www.acme.com?Dry"], 0),
            (["can-open", "todolist://x?y"], 0),
            (["can-open", "nobody://x"], 3),
        ]
        for (arguments, expected) in cases {
            let result = try await fixture.run(courier, arguments)
            #expect(result.status == expected, "courier \(arguments): \(result.output) \(result.error)")
        }
        let json = try await fixture.run(courier, ["open", "--json", "todolist://www.acme.com?Third"])
        #expect(json.output.contains("\"bundle_id\":\"com.acme.todolist\""), "\(json.output)")
        #expect(json.output.contains("\"handled\":true"))
        // The dry run stored nothing.
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["Quarterly Report", "Second", "Third"])
        let status = try await fixture.run(courier, ["status"])
        #expect(status.output.contains("com.acme.todolist\tidle"), "\(status.output)")
    }

    @Test func registeringAManifestAtRunTimeRoutesToItAndEmitsRegistryChanged() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let signals = try await fixture.client.connection.signals(matching: MatchRule(
            path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "RegistryChanged"))
        #expect(try await fixture.client.canOpen("echo://x") == false)
        let extra = fixture.root.appendingPathComponent("extra", isDirectory: true)
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        let script = PythonPeers.path("fake_app.py")
        try BrokerFixture.ManifestWriter(folder: extra).write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, script, "echo"])
        let bundleID = try await fixture.client.registerManifest(atPath: extra.appendingPathComponent("com.acme.echo.plist").path)
        #expect(bundleID == "com.acme.echo")
        var iterator = signals.makeAsyncIterator()
        let signal = await iterator.next()
        #expect(signal?.body.first?.stringArrayValue == ["com.acme.echo"])
        #expect(try await fixture.client.open("echo://x").handled)
        try await fixture.client.unregister(bundleID: "com.acme.echo")
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open("echo://y") }
        #expect(error?.code == .noHandler)
    }
}
