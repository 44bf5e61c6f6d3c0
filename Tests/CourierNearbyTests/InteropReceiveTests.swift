import BusTestSupport
import Foundation
import Testing

/// LocalSend implementations nobody here wrote send into a Courier app's Inbox, over HTTPS on
/// loopback: PyPI's `localsend-cli` (a trusted sender) and `localsendd` (v2.2, mutual TLS, PIN).
/// Byte-exact: the SHA-256 of what lands in the Inbox is the SHA-256 of what was sent.
@Suite("Nearby: LocalSend peers send into an Inbox", .serialized)
struct InteropReceiveTests {
    @Test func localsendCLISendsToATrustedReceiverAndTheFilesLandInTheInbox() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let cli = try await fixture.trustLocalsendCLI()

        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist, "--trusted-only"])
        let tasks = try fixture.file("tasks.txt", Data("buy milk\ncall Ana\n".utf8))
        // Three long lines (the todolist makes a task of each line): 480 KB, many TLS records.
        let notes = try fixture.file("notes.txt", Data((0..<3).map { line in (0..<8_000).map { "\(line).\($0) ünïcode " }.joined() + "\n" }.joined().utf8))
        let sent = try await fixture.run(cli, ["send", "127.0.0.1", tasks, notes, "--port", String(port), "--json"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.components(separatedBy: "\"event\": \"sent\"").count == 3, "\(sent.output)")

        let inbox = fixture.inbox()
        #expect(fixture.contents(of: inbox) == ["notes.txt", "tasks.txt"])
        for (name, source) in [("tasks.txt", tasks), ("notes.txt", notes)] {
            #expect(NearbyFixture.sha256(inbox.appendingPathComponent(name).path) == NearbyFixture.sha256(source), "\(name) differs")
        }
        #expect(fixture.contents(of: fixture.staging).isEmpty, "staging keeps \(fixture.contents(of: fixture.staging))")
        // One log line for the session: who, what, where it went.
        let log = receiver.errors
        #expect(log.contains("admitted by trusted"), "\(log)")
        #expect(log.contains("\"tasks.txt\" → \(inbox.path)/tasks.txt"), "\(log)")
    }
}
