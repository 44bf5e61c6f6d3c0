import BusTestSupport
import Foundation
import Testing

/// The default consent mode asks a person, and these tests are that person: on a real terminal (a
/// pseudo-terminal Python's `pty` module makes, which types the answer at the prompt), and through
/// a real `org.freedesktop.Notifications` server on the fixture's private bus (`TestNotificationServer`,
/// which invokes an action the way a notification daemon does when the user clicks it). The sender is
/// `courier nearby send`; what lands in the Inbox, what the sender hears and what the notification
/// server was asked are all checked.
@Suite("Nearby: consent prompts on a terminal and as a desktop notification", .serialized)
struct ConsentPromptTests {
    /// The fixture with its broker running.
    static func fixture() async throws -> NearbyFixture {
        let fixture = try NearbyFixture()
        try await fixture.waitForBroker()
        return fixture
    }

    /// `courier nearby send` of a small text file to the receiver on `port`.
    static func send(_ fixture: NearbyFixture, port: Int, name: String = "groceries.txt") async throws -> (status: Int32, output: String, errors: String, path: String) {
        let file = try fixture.file(name, Data("apples\npears\n".utf8))
        let sent = try await fixture.nearby(["send", file, "--to-device", "127.0.0.1:\(port)"])
        return (sent.status, sent.output, sent.errors, file)
    }

    // MARK: - Terminal

    /// `courier nearby receive` (default consent) on a pseudo-terminal that types `answer`.
    static func startOnTerminal(_ fixture: NearbyFixture, answer: String, extra: [String] = []) async throws -> (BackgroundProcess, Int) {
        let driver = PythonPeers.path("consent_terminal.py")
        let process = try BackgroundProcess("/usr/bin/python3", [driver, answer, Products.path("courier-nearby"), "receive", "--to", NearbyFixture.todolist,
                                                                 "--bind", "127.0.0.1", "--port", "0", "--no-discovery"] + extra,
                                            environment: fixture.environment, outputIn: fixture.root, name: "terminal")
        for _ in 0..<1000 where process.exitStatus == nil {
            if let range = process.output.range(of: #"on https://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
               let port = Int(process.output[range].split(separator: ":").last ?? "") {
                return (process, port)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("courier nearby receive did not start on the terminal: \(process.output)\(process.errors)")
        throw CancellationError()
    }

    /// The terminal's output once it contains `text` (or after 10 s): the pty driver copies what
    /// the receiver prints a moment after the sender already has its answer.
    static func output(of terminal: BackgroundProcess, once text: String) async throws -> String {
        for _ in 0..<500 where !terminal.output.contains(text) { try await Task.sleep(for: .milliseconds(20)) }
        return terminal.output
    }

    @Test func yesOnTheTerminalLetsTheSenderIn() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (receiver, port) = try await Self.startOnTerminal(fixture, answer: "y")
        defer { receiver.signal(SIGTERM) }
        #expect(receiver.output.contains("consent: trusted senders, asking on this terminal"), "\(receiver.output)")
        let sent = try await Self.send(fixture, port: port)
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)\nterminal: \(receiver.output)")
        // What the person was shown: who, the file, its size and the app it goes to.
        #expect(receiver.output.contains("wants to send 1 file(s)"), "\(receiver.output)")
        #expect(receiver.output.contains("groceries.txt (13 bytes) → \(NearbyFixture.todolist)"), "\(receiver.output)")
        #expect(NearbyFixture.sha256(fixture.inbox().appendingPathComponent("groceries.txt").path) == NearbyFixture.sha256(sent.path))
        let shown = try await Self.output(of: receiver, once: "admitted by asked")
        #expect(shown.contains("admitted by asked"), "\(shown)")
    }

    @Test func noOnTheTerminalOrNoAnswerRefusesAndNothingArrives() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (receiver, port) = try await Self.startOnTerminal(fixture, answer: "n")
        let declined = try await Self.send(fixture, port: port)
        #expect(declined.status == 1, "\(declined.output)\(declined.errors)")
        #expect(declined.errors.contains("declined"), "\(declined.errors)")
        let shown = try await Self.output(of: receiver, once: "refused: 403 the user declined")
        #expect(shown.contains("refused: 403 the user declined"), "\(shown)")
        receiver.signal(SIGTERM)
        _ = await receiver.wait(timeout: .seconds(10))

        // Nobody at the terminal: after --ask-timeout the session is declined.
        let (silent, silentPort) = try await Self.startOnTerminal(fixture, answer: "", extra: ["--ask-timeout", "2"])
        defer { silent.signal(SIGTERM) }
        let unanswered = try await Self.send(fixture, port: silentPort)
        #expect(unanswered.status == 1, "\(unanswered.output)\(unanswered.errors)")
        let silentShown = try await Self.output(of: silent, once: "no answer: declined")
        #expect(silentShown.contains("no answer: declined"), "\(silentShown)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)
        #expect(fixture.contents(of: fixture.staging).isEmpty)
    }

    // MARK: - Desktop notification

    /// The notification server, answering with `action` after `delay` seconds; waits until it owns
    /// its name. Returns it and the file it records calls in.
    static func startNotificationServer(_ fixture: NearbyFixture, action: String, delay: Double = 0.3) async throws -> (BackgroundProcess, URL) {
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: action, delay: delay)
        return (server.process, server.record)
    }

    static func calls(_ record: URL) -> [[String: Any]] {
        let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func acceptOnTheNotificationLetsTheSenderIn() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (server, record) = try await Self.startNotificationServer(fixture, action: "accept")
        defer { server.signal(SIGTERM) }
        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        #expect(receiver.errors.contains("asking with a desktop notification"), "\(receiver.errors)")
        let sent = try await Self.send(fixture, port: port)
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)\n\(receiver.errors)")
        #expect(NearbyFixture.sha256(fixture.inbox().appendingPathComponent("groceries.txt").path) == NearbyFixture.sha256(sent.path))

        let calls = Self.calls(record)
        let notify = try #require(calls.first { $0["call"] as? String == "Notify" }, "\(calls)")
        #expect(notify["actions"] as? [String] == ["accept", "Accept", "decline", "Decline"], "\(notify)")
        #expect((notify["summary"] as? String)?.hasPrefix("Files from Courier on ") == true, "\(notify)")
        #expect((notify["body"] as? String)?.contains("groceries.txt (13 bytes) → \(NearbyFixture.todolist)") == true, "\(notify)")
        #expect(notify["timeout"] as? Int == 45_000, "\(notify)")
        // The answered notification is withdrawn.
        #expect(calls.contains { $0["call"] as? String == "CloseNotification" && $0["id"] as? Int == notify["id"] as? Int }, "\(calls)")
    }

    @Test func declineOnTheNotificationRefusesAndNothingArrives() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (server, _) = try await Self.startNotificationServer(fixture, action: "decline")
        defer { server.signal(SIGTERM) }
        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        let sent = try await Self.send(fixture, port: port)
        #expect(sent.status == 1, "\(sent.output)\(sent.errors)")
        #expect(sent.errors.contains("declined"), "\(sent.errors)")
        #expect(receiver.errors.contains("refused: 403 the user declined"), "\(receiver.errors)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)
    }

    /// Another process on the bus emits `ActionInvoked(id, "accept")` for every likely id while the
    /// real server waits 3 s and then declines: only the server that shows the notification can
    /// answer it, so the session is declined.
    @Test func aForgedAcceptFromAnotherProcessOnTheBusIsIgnored() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (server, record) = try await Self.startNotificationServer(fixture, action: "decline", delay: 3)
        defer { server.signal(SIGTERM) }
        let forger = try TestNotificationServer.startForger(key: "accept", seconds: 20, environment: fixture.environment, folder: fixture.root)
        defer { forger.signal(SIGTERM) }
        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        let sent = try await Self.send(fixture, port: port)
        #expect(forger.exitStatus == nil, "the forger stopped early: \(forger.errors)")
        #expect(Self.calls(record).contains { $0["call"] as? String == "Notify" }, "the real server was asked")
        #expect(sent.status == 1, "a forged click let the sender in: \(sent.output)\(sent.errors)")
        #expect(receiver.errors.contains("refused: 403 the user declined"), "\(receiver.errors)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)
    }
}
