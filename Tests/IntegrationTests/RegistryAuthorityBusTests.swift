import BusTestSupport
import Courier
import CourierTools
import CourierBroker
import DBus
import Foundation
import Testing

/// The issue "Trust", register and unregister authority, played on a real bus: a process of the
/// same user (python-dbus, gdbus, a file written into the watched manifests folder) cannot silently
/// take over a running app's bundle id or scheme; an app cannot unregister another; every change is
/// logged with who made it, announced by `RegistryChanged` and shown by `courier dump`.
@Suite("Registry authority on a private bus", .serialized)
struct RegistryAuthorityBusTests {
    /// todolist, the echo app (rank Default on echo:) and com.acme.notes, an app that tries to
    /// unregister todolist once launched.
    static func fixture() async throws -> BrokerFixture {
        try await BrokerFixture { writer in
            try writer.todolist()
            let echo = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, echo, "echo"])
            let notes = PythonPeers.path("unregister_app.py")
            try writer.write("com.acme.notes", schemes: ["notes"], arguments: [systemPython, notes, "x"])
        }
    }

    /// Runs registrar.py; its pid and its answer.
    static func registrar(_ fixture: BrokerFixture, _ arguments: [String]) async throws -> (pid: String, answer: String) {
        let script = PythonPeers.path("registrar.py")
        let lines = try await fixture.run(systemPython, [script] + arguments).output.split(separator: "\n").map(String.init)
        return (lines.first ?? "", lines.dropFirst().joined(separator: "\n"))
    }

    /// A manifest outside the fixture's folder.
    static func manifest(_ fixture: BrokerFixture, _ name: String, _ plist: [String: Any]) throws -> String {
        let folder = fixture.root.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
        return file.path
    }

    static func impostorTodolist(_ fixture: BrokerFixture) throws -> String {
        try manifest(fixture, "com.acme.todolist.plist", [
            "CFBundleIdentifier": "com.acme.todolist",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["todolist"], "LSHandlerRank": "Owner"]],
            "CourierLaunchArguments": [systemPython, "-c", "pass"],
        ])
    }

    static func pid(of bundleID: String, in fixture: BrokerFixture) async throws -> UInt32? {
        try await fixture.client.processes().first { $0["bundle-id"]?.stringValue == bundleID }?["pid"]?.uint32Value
    }

    @Test func anotherProcessCannotTakeARunningAppsBundleIDOrScheme() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let signals = try await fixture.client.connection.signals(matching: MatchRule(
            path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "RegistryChanged"))
        #expect(try await fixture.client.open("todolist://www.acme.com?First").handled)
        #expect(try await fixture.client.open("echo://first").handled)
        let todolistPID = try await Self.pid(of: "com.acme.todolist", in: fixture)
        // Re-pointing the running todolist at another executable: refused, nothing changed.
        let repoint = try await Self.registrar(fixture, ["register", try Self.impostorTodolist(fixture)])
        #expect(repoint.answer.hasPrefix("org.courier.Error.NotPermitted"), "\(repoint)")
        #expect(repoint.answer.contains("com.acme.todolist is running and registered to launch"), "\(repoint)")
        #expect(repoint.answer.contains("--replace"))
        // Taking echo: from the running echo app with a stronger rank: refused.
        let taker = try Self.manifest(fixture, "com.evil.taker.plist", [
            "CFBundleIdentifier": "com.evil.taker",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["echo"], "LSHandlerRank": "Owner"]],
            "CourierLaunchArguments": [systemPython, "-c", "pass"],
        ])
        let take = try await Self.registrar(fixture, ["register", taker])
        #expect(take.answer.hasPrefix("org.courier.Error.NotPermitted") && take.answer.contains("handles echo: URLs"), "\(take)")
        // The running apps keep receiving; nothing was launched for the attempts.
        #expect(try await fixture.client.open("todolist://www.acme.com?Second").handled)
        #expect(try await Self.pid(of: "com.acme.todolist", in: fixture) == todolistPID)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["First", "Second"])
        #expect(try await fixture.client.open("echo://second").bundleID == "com.acme.echo")
        #expect(fixture.launcher.count == 2)
        #expect(try await fixture.client.listApplications().contains { $0["bundle-id"]?.stringValue == "com.evil.taker" } == false)

        // Confirmed with replace: registered, logged and announced with who did it.
        let confirmed = try await Self.registrar(fixture, ["register", taker, "replace"])
        #expect(confirmed.answer == "OK com.evil.taker", "\(confirmed)")
        var iterator = signals.makeAsyncIterator()
        let signal = await iterator.next()
        #expect(signal?.body.first?.stringArrayValue == ["com.evil.taker"])
        let details = signal?.body.dropFirst(3).first?.vardictValue ?? [:]
        #expect(details["via"]?.stringValue == "RegisterManifestWithOptions", "\(details)")
        #expect(details["pid"]?.uint32Value.map(String.init) == confirmed.pid, "\(details)")
        #expect(details["executable"]?.stringValue?.contains("python3") == true, "\(details)")
        let dump = try await fixture.run(Products.path("courier-tool"), ["dump"])
        #expect(dump.output.contains("recent registry changes"), "\(dump.output)")
        #expect(dump.output.contains("added com.evil.taker") && dump.output.contains("pid \(confirmed.pid)"), "\(dump.output)")
        // echo: URLs now go to the taker; the echo app, which only lost a scheme, runs on.
        #expect(try await fixture.client.handlers(for: "echo://x").first == "com.evil.taker")
        #expect(try await Self.state(of: "com.acme.echo", in: fixture) != "not-running")
        // Re-pointing todolist, confirmed: its running instance (the old executable) is asked to quit.
        let repointed = try await Self.registrar(fixture, ["register", try Self.impostorTodolist(fixture), "replace"])
        #expect(repointed.answer == "OK com.acme.todolist", "\(repointed)")
        var quit = false
        for _ in 0..<200 where !quit {
            quit = try await Self.state(of: "com.acme.todolist", in: fixture) == "not-running"
            if !quit { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(quit)
    }

    static func state(of bundleID: String, in fixture: BrokerFixture) async throws -> String? {
        try await fixture.client.processes().first { $0["bundle-id"]?.stringValue == bundleID }?["state"]?.stringValue
    }

    @Test func aManifestWrittenIntoTheWatchedFolderIsHeldBackWhileTheAppRuns() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        await fixture.catalog.startWatching()
        let signals = try await fixture.client.connection.signals(matching: MatchRule(
            path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "RegistryChanged"))
        #expect(try await fixture.client.open("todolist://www.acme.com?First").handled)
        // A file named to sort first, re-pointing todolist's bundle id (the writer is unknown).
        let planted = fixture.manifests.appendingPathComponent("0-planted.plist")
        try FileManager.default.copyItem(atPath: try Self.impostorTodolist(fixture), toPath: planted.path)
        var iterator = signals.makeAsyncIterator()
        let signal = await iterator.next()
        let details = signal?.body.dropFirst(3).first?.vardictValue ?? [:]
        #expect(details["via"]?.stringValue == "manifest folder", "\(details)")
        #expect(details["held"]?.stringArrayValue?.first?.contains("com.acme.todolist is running") == true, "\(details)")
        // Still the real app, same process.
        #expect(try await fixture.client.open("todolist://www.acme.com?Second").handled)
        #expect(fixture.launcher.count == 1)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["First", "Second"])
        let dump = try await fixture.run(Products.path("courier-tool"), ["dump"])
        #expect(dump.output.contains("held back: com.acme.todolist is running"), "\(dump.output)")
        #expect(dump.output.contains("0-planted.plist"), "\(dump.output)")
    }

    @Test func anAppCannotUnregisterAnotherAndAnUnregistrationSaysWhoDidIt() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?First").handled)
        // notes is a Courier app: it may not unregister another app.
        #expect(try await fixture.client.open("notes://start").handled)
        let answer = try String(contentsOf: fixture.container("com.acme.notes").appendingPathComponent("unregister.txt"), encoding: .utf8)
        #expect(answer.hasPrefix("org.courier.Error.NotPermitted") && answer.contains("may unregister only itself"), "\(answer)")
        #expect(try await fixture.client.listApplications().contains { $0["bundle-id"]?.stringValue == "com.acme.todolist" })
        // gdbus, no app (the user's shell would be the same): allowed, logged with its pid and executable.
        let signals = try await fixture.client.connection.signals(matching: MatchRule(
            path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "RegistryChanged"))
        var iterator = signals.makeAsyncIterator()
        let gdbus = try await fixture.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
                                                           "--method", "org.courier.Broker1.Unregister", "com.acme.todolist"])
        #expect(gdbus.status == 0, "\(gdbus.error)")
        let signal = await iterator.next()
        #expect(signal?.body.dropFirst().first?.stringArrayValue == ["com.acme.todolist"])
        let details = signal?.body.dropFirst(3).first?.vardictValue ?? [:]
        #expect(details["via"]?.stringValue == "Unregister")
        #expect(details["executable"]?.stringValue?.hasSuffix("gdbus") == true, "\(details)")
        #expect(details["pid"] != nil)
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open("todolist://www.acme.com?After") }
        #expect(error?.code == .noHandler)
        #expect(try await fixture.client.open("echo://still-serving").handled)
    }
}
