import BusTestSupport
import Foundation
import Testing

/// The receiver attacked as an attacker on the network would: PIN guesses from ever new source
/// addresses (every 127.x.y.z is this machine's, as a /64 is an IPv6 host's), half-open connections
/// that would hold every slot, and aliases and names written to fake what the user is shown. Each
/// against a real `courier nearby receive` with a real broker, from Python's `ssl` and `http.client`.
@Suite("Nearby: attacks on the receiver", .serialized)
struct AttackTests {
    /// Wrong PINs from a new source address each, then the right PIN as the eleventh guess; a 429
    /// (back-off) is retried from the next address. Prints what it heard, as JSON.
    static let guesser = #"""
    import http.client, json, ssl, sys, time
    port, body, right = int(sys.argv[1]), open(sys.argv[2], "rb").read(), sys.argv[3]
    context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
    guesses = [f"{n:04d}" for n in range(10)] + [right] + [f"{n:04d}" for n in range(10, 40)]
    heard = {"wrong": 0, "backoff": 0, "accepted": [], "closed": 0, "answers": [], "sources": 0}
    source, deadline = 2, time.time() + 90
    for pin in guesses:
        while time.time() < deadline:
            address = f"127.0.{source >> 8}.{source & 255}"
            source += 1
            if source & 255 in (0, 255): source += 2
            connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, source_address=(address, 0), timeout=10)
            connection.request("POST", f"/api/localsend/v2/prepare-upload?pin={pin}", body, {"content-type": "application/json"})
            response = connection.getresponse(); text = response.read().decode(); connection.close()
            heard["sources"] += 1
            if response.status == 429:
                heard["backoff"] += 1; time.sleep(0.05); continue
            heard["answers"].append([pin, response.status, text])
            if response.status == 200: heard["accepted"].append(pin)
            if response.status == 401: heard["wrong"] += 1
            if response.status == 403: heard["closed"] += 1
            break
        if heard["closed"] >= 5: break
    print(json.dumps(heard))
    """#

    @Test func guessingThePINFromRotatingAddressesSpendsTheBudgetAndTellsTheUser() async throws {
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        let (notifications, record) = try await ConsentPromptTests.startNotificationServer(receiver.fixture, action: "none")
        defer { notifications.signal(SIGTERM) }
        let body = try receiver.fixture.file("prepare.json", try JSONSerialization.data(withJSONObject: BadInputTests.Receiver.prepare([BadInputTests.Receiver.file("f1", "a.txt", size: 3)])))
        let script = try receiver.fixture.file("guess.py", Data(Self.guesser.utf8))
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

    /// Eight half TLS handshakes from one address, a ninth from it, and 48 connections from other
    /// addresses that finish TLS and send half a request head; then a real peer's `GET info`, and
    /// how long the held connections stay open.
    static let halfOpen = #"""
    import http.client, json, socket, ssl, sys, time
    port = int(sys.argv[1])
    context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
    def closed(s, seconds):
        s.settimeout(seconds)
        try:
            return s.recv(1) == b""
        except socket.timeout:
            return False
        except (ssl.SSLError, OSError):
            return True
    held = []
    for _ in range(8):
        s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
        s.sendall(b"\x16\x03\x01\x02\x00\x01")
        held.append(s)
    ninth = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    ninth_closed = closed(ninth, 3)
    for i in range(48):
        raw = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.9.{i + 2}", 0))
        tls = context.wrap_socket(raw)
        tls.sendall(b"GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\n")
        held.append(tls)
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    connection.request("GET", "/api/localsend/v2/info")
    info = connection.getresponse().status
    start = time.time()
    still_open = sum(0 if closed(s, max(0.1, start + 30 - time.time())) else 1 for s in held)
    print(json.dumps({"ninth_closed": ninth_closed, "info": info, "still_open": still_open}))
    """#

    @Test func halfOpenConnectionsAreCappedPerAddressAndClosedByShortDeadlines() async throws {
        // The idle timeout stays at its 60 s: only the handshake and head deadlines can close these within 30 s.
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        let script = try receiver.fixture.file("half-open.py", Data(Self.halfOpen.utf8))
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
