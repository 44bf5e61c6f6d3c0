import BusTestSupport
import Foundation
import Testing

/// The receiver attacked as an attacker on the network would: PIN guesses from ever new source
/// addresses (every 127.x.y.z is this machine's, as a /64 is an IPv6 host's), half-open connections
/// that would hold every slot, and aliases and names written to fake what the user is shown. Each
/// against a real `courier nearby receive` with a real broker, from Python's `ssl` and `http.client`.
@Suite("Nearby: attacks on the receiver", .serialized)
struct AttackTests {
    @Test func guessingThePINFromRotatingAddressesSpendsTheBudgetAndTellsTheUser() async throws {
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        let (notifications, record) = try await ConsentPromptTests.startNotificationServer(receiver.fixture, action: "none")
        defer { notifications.signal(SIGTERM) }
        let body = try receiver.fixture.file("prepare.json", try JSONSerialization.data(withJSONObject: BadInputTests.Receiver.prepare([BadInputTests.Receiver.file("f1", "a.txt", size: 3)])))
        let script = PythonPeers.path("pin_guesser.py")
        let run = try await receiver.fixture.run("/usr/bin/python3", [script, String(receiver.port), body, BadInputTests.pin])
        let heard = try #require(try JSONSerialization.jsonObject(with: Data((run.output.split(separator: "\n").last ?? "").utf8)) as? [String: Any],
                                 "\(run.output)\(run.errors)")
        #expect((heard["accepted"] as? [String])?.isEmpty == true, "the right PIN, tried eleventh, must not get in: \(heard)")
        #expect(heard["wrong"] as? Int == 10, "the budget is 10 wrong PINs in all, whatever their source: \(heard)")
        #expect((heard["sources"] as? Int ?? 0) > 11, "the guesses came from many addresses: \(heard)")
        let answers = heard["answers"] as? [[Any]] ?? []
        let afterBudget = answers.dropFirst(10)
        #expect(!afterBudget.isEmpty && afterBudget.allSatisfy { ($0[1] as? Int) == 403 && ($0[2] as? String ?? "").contains("accepts no more PINs") }, "\(answers)")

        // The right PIN from the real sender's own address: refused until the user restarts.
        let real = try await receiver.post("prepare-upload?pin=\(BadInputTests.pin)", json: BadInputTests.Receiver.prepare([BadInputTests.Receiver.file("f1", "a.txt", size: 3)]))
        #expect(real.status == 403 && real.body.contains("restart"), "\(real)")
        // The user is told at once, on the terminal and by a notification, and how to go on.
        let log = receiver.process.errors
        #expect(log.contains("10 wrong PINs have been tried") && log.contains("--generate-pin") && log.contains("courier nearby trust"), "\(log)")
        var notified: [[String: Any]] = []
        for _ in 0..<250 where notified.isEmpty {
            notified = ConsentPromptTests.calls(record).filter { ($0["summary"] as? String)?.contains("stopped accepting PINs") == true }
            if notified.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(notified.count == 1 && (notified.first?["body"] as? String ?? "").contains("restart"), "\(ConsentPromptTests.calls(record))")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty)
        #expect(receiver.fixture.contents(of: receiver.fixture.staging).isEmpty)
    }

    @Test func aGeneratedPINHasEightDigitsAndIsPrintedAtStart() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let (receiver, _) = try await fixture.startReceiver(["--to", NearbyFixture.todolist, "--generate-pin"])
        let line = try #require(receiver.errors.range(of: #"the PIN is [0-9]+"#, options: .regularExpression).map { receiver.errors[$0] }, "\(receiver.errors)")
        #expect(line.split(separator: " ").last?.count == 8, "\(line)")
        #expect(!receiver.errors.contains("is short"), "\(receiver.errors)")
    }

    @Test func halfOpenConnectionsAreCappedPerAddressAndClosedByShortDeadlines() async throws {
        // The idle timeout stays at its 60 s: only the handshake and head deadlines can close these within 30 s.
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        let script = PythonPeers.path("half_open_connections.py")
        let run = try await receiver.fixture.run("/usr/bin/python3", [script, String(receiver.port)])
        let heard = try #require(try JSONSerialization.jsonObject(with: Data((run.output.split(separator: "\n").last ?? "").utf8)) as? [String: Any],
                                 "\(run.output)\(run.errors)")
        #expect(heard["ninth_closed"] as? Bool == true, "a ninth connection from one address is closed at once: \(heard)")
        #expect(heard["info"] as? Int == 200, "a real peer is served while half-open connections wait: \(heard)")
        #expect(heard["still_open"] as? Int == 0, "every half-open connection is closed by its deadline, not the idle timeout: \(heard)")
        #expect(receiver.process.errors.contains("refused a connection from 127.0.0.2: 8 are open from that address"), "\(receiver.process.errors)")
        try await receiver.expectCleanAndServing("after half-open connections")
    }

    @Test(arguments: ["Ana's phone\n\u{1B}[2K\rAccept? [y/N] y", "\u{202E}enohp s'anA", "bell\u{7}", "c1\u{9B}31m"])
    func aliasesThatWouldFakeThePromptAreRefused(_ alias: String) async throws {
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        var body = BadInputTests.Receiver.prepare([BadInputTests.Receiver.file("f1", "a.txt", size: 3)])
        var info = body["info"] as? [String: Any] ?? [:]
        info["alias"] = alias
        body["info"] = info
        let answer = try await receiver.post("prepare-upload?pin=\(BadInputTests.pin)", json: body)
        #expect(answer.status == 400 && answer.body.contains("info.alias") && answer.body.contains("printable text"), "\(answer)")
        let log = receiver.process.errors
        #expect(log.contains("refused: 400 info.alias"), "\(log)")
        #expect(!log.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x9B || $0.value == 7 }, "the log shows the alias escaped: \(log.debugDescription)")
        try await receiver.expectCleanAndServing("after alias \(alias.debugDescription)")
    }
}
