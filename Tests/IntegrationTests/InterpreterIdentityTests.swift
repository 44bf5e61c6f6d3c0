import BusTestSupport
import Courier
import Foundation
import Testing

/// An interpreter alone is not an identity: todolist admits only com.acme.notes (a Python app run
/// as `/usr/bin/python3 calling_app.py`), and another script run by the same interpreter that
/// takes the name com.acme.notes can neither check in as it nor open todolist's URLs or drop files
/// on it as it.
@Suite("Interpreter identity on a private bus", .serialized)
struct InterpreterIdentityTests {
    /// Runs `claimant.py` with `arguments` (by `executable`: python3, or bwrap around it) until it
    /// has tried everything; the folder its answers are in.
    static func claim(_ fixture: BrokerFixture, _ arguments: [String], executable: String = systemPython, prefix: [String] = []) async throws -> URL {
        let out = fixture.root.appendingPathComponent("claimant-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let script = try PythonPeers.copy("claimant.py", to: fixture.root)
        let process = try BackgroundProcess(executable, prefix + [script, arguments[0], arguments[1], out.path] + arguments.dropFirst(2),
                                            environment: fixture.environment, outputIn: out, name: "claimant")
        defer { process.kill() }
        let status = await process.wait(timeout: .seconds(60))
        #expect(status == 0, "claimant: \(process.errors)")
        return out
    }

    static func read(_ folder: URL, _ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    @Test func anotherScriptOfTheSameInterpreterIsNotTheAllowlistedApp() async throws {
        let fixture = try await CallerRuleBusTests.fixture(urlCallers: ["com.acme.notes"], dropCallers: ["com.acme.notes"],
                                                           attempts: ["open:todolist://www.acme.com?From%20notes"])
        defer { fixture.tearDown() }
        let note = fixture.root.appendingPathComponent("planted.txt")
        try Data("planted line\n".utf8).write(to: note)
        let out = try await Self.claim(fixture, ["claim", "com.acme.notes", "todolist://www.acme.com?Stolen", "drop:com.acme.todolist:\(note.path)"])
        #expect(Self.read(out, "checkin.txt").hasPrefix("org.courier.Error.NotPermitted"), "\(Self.read(out, "checkin.txt"))")
        #expect(Self.read(out, "checkin.txt").contains("claimant.py"), "\(Self.read(out, "checkin.txt"))")
        #expect(Self.read(out, "open.txt").hasPrefix("org.courier.Error.NotPermitted"), "\(Self.read(out, "open.txt"))")
        #expect(Self.read(out, "drop.txt").hasPrefix("org.courier.Error.NotPermitted"), "\(Self.read(out, "drop.txt"))")
        let inbox = fixture.container(CallerRuleBusTests.todolistID).appendingPathComponent("Documents/Inbox")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).isEmpty)
        #expect(!fixture.todoItems().contains { $0["task"] == "Stolen" })
        #expect(try await !CallerRuleBusTests.launched(fixture, CallerRuleBusTests.todolistID))

        // The app itself, the interpreter running its own script, gets through.
        #expect(try await fixture.client.open("notes://start").handled)
        #expect(try CallerRuleBusTests.calls(fixture)["open:todolist://www.acme.com?From%20notes"] == "True")
        #expect(fixture.todoItems().map { $0["task"] } == ["From notes"])
    }
}
