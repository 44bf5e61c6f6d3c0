import BusTestSupport
import Courier
import CourierTools
import CourierBroker
import Foundation
import Testing

/// The issue "Trust", an app decides who may call it (`CourierAllowedCallers`,
/// `CourierAllowedDropCallers`), played on a real bus with callers nobody here wrote (gdbus,
/// python-dbus apps): a refused caller gets `NotPermitted` naming the rule, the app is never
/// launched and its Inbox stays empty, an admitted app gets through, and the broker keeps serving.
@Suite("Caller rules on a private bus", .serialized)
struct CallerRuleBusTests {
    static let todolistID = "com.acme.todolist"

    /// todolist with `urlCallers` on its URL type and `dropCallers` at the top level; an echo app
    /// (no rule) to show the broker still serves; and the python app com.acme.notes, which makes
    /// `attempts` once launched (`notes://start`).
    static func fixture(urlCallers: [String]? = nil, dropCallers: [String]? = nil, attempts: [String] = []) async throws -> BrokerFixture {
        try await BrokerFixture { writer in
            try writer.todolist()
            let file = writer.folder.appendingPathComponent("com.acme.todolist.plist")
            var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil) as? [String: Any])
            if let urlCallers, var types = plist["CFBundleURLTypes"] as? [[String: Any]] {
                types[0]["CourierAllowedCallers"] = urlCallers
                plist["CFBundleURLTypes"] = types
            }
            if let dropCallers { plist["CourierAllowedDropCallers"] = dropCallers }
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
            let echo = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, echo, "echo"])
            let caller = PythonPeers.path("calling_app.py")
            try writer.write("com.acme.notes", schemes: ["notes"], arguments: [systemPython, caller, "calls"] + attempts, queries: ["todolist"])
        }
    }

    /// What com.acme.notes' attempts answered ("ATTEMPT" → "ANSWER").
    static func calls(_ fixture: BrokerFixture) throws -> [String: String] {
        let text = try String(contentsOf: fixture.container("com.acme.notes").appendingPathComponent("calls.txt"), encoding: .utf8)
        return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map { line in
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        })
    }

    static func gdbus(_ fixture: BrokerFixture, _ method: String, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await fixture.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
                                                 "--method", "org.courier.Broker1." + method] + arguments)
    }

    /// Whether a process runs the todolist executable on this fixture's bus (the app was woken by
    /// someone); a todolist of another test or run on the machine does not count.
    static func todolistRuns(_ fixture: BrokerFixture) -> Bool {
        let target = URL(fileURLWithPath: Products.path("todolist")).resolvingSymlinksInPath().path
        let bus = Data("DBUS_SESSION_BUS_ADDRESS=\(fixture.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "")\0".utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.contains { pid in
            pid.allSatisfy(\.isNumber) && (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == target
                && (FileManager.default.contents(atPath: "/proc/\(pid)/environ")?.range(of: bus) != nil)
        }
    }

    static func launched(_ fixture: BrokerFixture, _ bundleID: String) async throws -> Bool {
        try await fixture.client.processes().contains { $0["bundle-id"]?.stringValue == bundleID && $0["state"]?.stringValue != "not-running" }
    }

    @Test func aCallerTheSchemesRuleDoesNotListIsRefusedAndTheAppNeverWakes() async throws {
        let fixture = try await Self.fixture(urlCallers: ["com.acme.notes"])
        defer { fixture.tearDown() }
        let secret = "todolist://www.acme.com?Secret%20task"
        // gdbus: not a Courier app.
        let refused = try await Self.gdbus(fixture, "OpenURL", [secret, "{}"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("org.courier.Error.NotPermitted"), "\(refused.error)")
        #expect(refused.error.contains("only com.acme.notes") && refused.error.contains("CFBundleURLTypes[0].CourierAllowedCallers"), "\(refused.error)")
        #expect(refused.error.contains("not a Courier app"), "\(refused.error)")
        // The Courier client library and the static front: the same error, exit 7.
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(secret) }
        #expect(error?.dbusName == "org.courier.Error.NotPermitted")
        let front = try await fixture.run(Products.path("courier"), ["open", secret])
        #expect(front.status == 7, "\(front.output) \(front.error)")
        #expect(front.error.contains("CourierAllowedCallers"), "\(front.error)")
        // The queries predict the open: CanOpenURL a plain no, a dry run the same refusal;
        // HandlersForURL still says who handles the scheme.
        #expect(try await Self.gdbus(fixture, "CanOpenURL", [secret]).output.contains("(false,)"))
        let dryRun = try await Self.gdbus(fixture, "OpenURL", [secret, "{'dry-run': <true>}"])
        #expect(dryRun.error.contains("org.courier.Error.NotPermitted"), "\(dryRun.error)")
        #expect(try await fixture.client.handlers(for: secret) == [Self.todolistID])
        // Never launched, no process, nothing stored.
        #expect(fixture.launcher.count == 0)
        #expect(!Self.todolistRuns(fixture))
        #expect(fixture.todoItems().isEmpty)
        #expect(try await !Self.launched(fixture, Self.todolistID))
        // The broker still serves.
        #expect(try await fixture.client.open("echo://still-serving").handled)
    }

    @Test func anAppTheRuleListsGetsThroughAndOneItSpawnsDoesNot() async throws {
        let fixture = try await Self.fixture(urlCallers: ["com.acme.notes"], attempts: [
            "can:todolist://www.acme.com?x", "open:todolist://www.acme.com?From%20notes", "child:todolist://www.acme.com?From%20a%20child",
            "relay:todolist://www.acme.com?Relayed",
        ])
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("notes://start").handled)
        let calls = try Self.calls(fixture)
        #expect(calls["can:todolist://www.acme.com?x"] == "True", "\(calls)")
        #expect(calls["open:todolist://www.acme.com?From%20notes"] == "True", "\(calls)")
        // A process the app spawned is not the app: the rule names apps, by their credentials.
        #expect(calls["child:todolist://www.acme.com?From%20a%20child"] == "org.courier.Error.NotPermitted", "\(calls)")
        // An open the app relays (org.freedesktop.Application.Open) is from nobody it can vouch for.
        #expect(calls["relay:todolist://www.acme.com?Relayed"] == "org.courier.Error.NotPermitted", "\(calls)")
        #expect(fixture.todoItems().map { $0["task"] } == ["From notes"])
        #expect(fixture.todoItems().first?["source"] == "com.acme.notes")
        // The check the other tests rely on sees this fixture's todolist when it runs.
        #expect(Self.todolistRuns(fixture))
    }

    @Test func courierAppsOnlyRefusesGdbusButAdmitsACheckedInApp() async throws {
        let fixture = try await Self.fixture(urlCallers: ["CourierApps"], attempts: ["open:todolist://www.acme.com?From%20an%20app"])
        defer { fixture.tearDown() }
        let refused = try await Self.gdbus(fixture, "OpenURL", ["todolist://www.acme.com?From%20gdbus", "{}"])
        #expect(refused.error.contains("org.courier.Error.NotPermitted") && refused.error.contains("Courier apps only"), "\(refused.error)")
        #expect(fixture.launcher.count == 0)
        #expect(try await fixture.client.open("notes://start").handled)
        #expect(try Self.calls(fixture)["open:todolist://www.acme.com?From%20an%20app"] == "True")
        #expect(fixture.todoItems().map { $0["task"] } == ["From an app"])
        #expect(fixture.todoItems().first?["source"] == "com.acme.notes")
        // The explanation shows the rule, from the broker's own registry.
        let explained = try await fixture.run(Products.path("courier-tool"), ["handlers", "todolist", "--explain"])
        #expect(explained.output.contains("1. com.acme.todolist — chosen"), "\(explained.output) \(explained.error)")
        #expect(explained.output.contains("callers: Courier apps only (not other processes) (CFBundleURLTypes[0].CourierAllowedCallers)"), "\(explained.output)")
    }

    @Test func aCallerTheDropRuleRefusesWritesNothingIntoTheInbox() async throws {
        let note = FileManager.default.temporaryDirectory.appendingPathComponent("caller-rule-\(UUID().uuidString).txt")
        try Data("Dropped by notes\n".utf8).write(to: note)
        defer { try? FileManager.default.removeItem(at: note) }
        let fixture = try await Self.fixture(dropCallers: ["com.acme.notes"], attempts: ["drop:com.acme.todolist:\(note.path)"])
        defer { fixture.tearDown() }
        let inbox = fixture.container(Self.todolistID).appendingPathComponent("Documents/Inbox")
        func inboxEntries() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? [] }
        // courier drop from the shell (DropFiles) and courier open FILE (OpenFiles): refused.
        let drop = try await fixture.run(Products.path("courier-tool"), ["drop", note.path, "--to", Self.todolistID])
        #expect(drop.status == 7, "\(drop.output) \(drop.error)")
        #expect(drop.error.contains("CourierAllowedDropCallers") && drop.error.contains("not a Courier app"), "\(drop.error)")
        let open = try await fixture.run(Products.path("courier-tool"), ["open", note.path])
        #expect(open.status == 7, "\(open.output) \(open.error)")
        // A URL from the shell is still admitted: the rule is for drops only.
        #expect(fixture.launcher.count == 0)
        #expect(inboxEntries().isEmpty, "\(inboxEntries())")   // no file, no partial (hidden) file
        #expect(!Self.todolistRuns(fixture))
        // The app the rule lists drops the same file: placed, and imported by todolist.
        #expect(try await fixture.client.open("notes://start").handled)
        let calls = try Self.calls(fixture)
        #expect(calls["drop:com.acme.todolist:\(note.path)"] == "1", "\(calls)")
        #expect(inboxEntries().count == 1, "\(inboxEntries())")
        #expect(fixture.todoItems().map { $0["task"] } == ["Dropped by notes"])
        #expect(try await fixture.client.open("todolist://www.acme.com?A%20URL").handled)
    }
}
