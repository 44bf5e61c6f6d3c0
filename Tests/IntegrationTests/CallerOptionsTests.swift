import BusTestSupport
import Courier
import CourierBroker
import DBus
import Foundation
import Testing

/// The issue "Trust", forged options, played as an attacker on a real bus: a caller's options
/// cannot carry the broker's authority (a dropped file, a source application), a `file:` URL is
/// not a drop, and a mistyped option is refused by name.
@Suite("Caller options on a private bus", .serialized)
struct CallerOptionsTests {
    @Test func forgedInboxAndSourceOptionsCarryNoAuthority() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        // A file where the app keeps dropped files, written by someone else: not a drop.
        let inbox = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.todolist/Documents/Inbox", isDirectory: true)
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let planted = inbox.appendingPathComponent("planted.txt")
        try Data("Planted task\n".utf8).write(to: planted)
        let script = PythonPeers.path("forged_options.py")
        let result = try await fixture.run(systemPython, [script, planted.path])
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.output) \(result.error)")
        #expect(lines.first == "org.courier.Error.NotPermitted", "\(lines)")   // todolist does not claim file:
        #expect(lines.dropFirst().first == "org.courier.Error.NoHandler", "\(lines)")   // nobody claims file:
        // The forged keys are ignored: handled as a plain URL from nobody.
        #expect(lines.dropFirst(2).first == "True com.acme.todolist", "\(lines)")
        #expect(lines.last == "org.courier.Error.InvalidArguments", "\(lines)")
        #expect(fixture.todoItems().map { $0["task"] } == ["Forged"])
        #expect(fixture.todoItems().first?["source"] == "")

        // gdbus, the same forged drop: refused, and told how to drop a file.
        let gdbus = try await fixture.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
            "--method", "org.courier.Broker1.OpenURL", "file://\(planted.path)", "{'bundle-id': <'com.acme.todolist'>, 'inbox': <true>}",
        ])
        #expect(gdbus.status != 0)
        #expect(gdbus.error.contains("org.courier.Error.NotPermitted") && gdbus.error.contains("courier drop"), "\(gdbus.error)")
        #expect(fixture.todoItems().count == 1)
        // The broker still serves.
        #expect(try await fixture.client.open("todolist://www.acme.com?After").handled)
    }
}

extension CallerOptionsTests {
    /// `org.freedesktop.Application.Open` on a Courier app takes any caller with no identity the
    /// broker can check: an app serves it only when it opts in, so by default it is no side door.
    @Test func freedesktopOpenOnACourierAppIsRefusedUnlessItOptsIn() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?First").handled)
        let result = try await fixture.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "com.acme.todolist", "--object-path", "/com/acme/todolist",
            "--method", "org.freedesktop.Application.Open", "['todolist://www.acme.com?Side%20door']", "{}",
        ])
        #expect(result.status != 0)
        #expect(result.error.contains("org.courier.Error.NotPermitted"), "\(result.error)")
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["First"])
    }
}
