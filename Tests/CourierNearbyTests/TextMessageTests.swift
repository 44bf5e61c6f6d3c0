import BusTestSupport
import Foundation
import Testing

/// LocalSend text messages (docs/nearby.md, "Text messages"): `courier nearby send --text` and
/// `courier share URL --activity nearby` into a real `courier nearby receive` on loopback, with a
/// real broker and the todolist app on the fixture's bus, the person being a real notification
/// server on that bus (`TestNotificationServer`) or a real pseudo-terminal. Each test attacks one
/// promise: trust does not skip the question, a decline opens nothing, the text shown is clean, a
/// PIN receiver wants its PIN, a huge message is refused before anyone is asked.
@Suite("Nearby: text messages are always asked about, and a link opens through the router", .serialized)
struct TextMessageTests {
    static let link = "todolist://www.acme.com?Buy%20milk"

    static func fixture() async throws -> NearbyFixture {
        let fixture = try NearbyFixture()
        try await fixture.waitForBroker()
        return fixture
    }

    static func sendText(_ fixture: NearbyFixture, _ text: String, port: Int, _ extra: [String] = []) async throws -> (status: Int32, output: String, errors: String) {
        try await fixture.nearby(["send", "--text", text, "--to-device", "127.0.0.1:\(port)", "--json"] + extra)
    }

    /// The tasks the todolist holds (`todolist list`, reading the app's container).
    static func tasks(_ fixture: NearbyFixture) async throws -> String {
        try await fixture.run(Products.path("todolist"), ["list"]).output
    }

    /// `curl -k` against a receiver: status and body.
    static func curl(_ fixture: NearbyFixture, _ arguments: [String]) async throws -> (status: Int, body: String) {
        let bodyPath = fixture.root.appendingPathComponent("curl-\(UUID().uuidString).out").path
        let result = try await fixture.run("/usr/bin/curl", ["-sk", "-o", bodyPath, "-w", "%{http_code}", "--max-time", "60"] + arguments)
        return (Int(result.output) ?? -1, (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? "")
    }

    /// POSTs `json` to `route` (a path from `/api/…`) of the receiver on `port`.
    static func post(_ fixture: NearbyFixture, port: Int, _ route: String, json: Any) async throws -> (status: Int, body: String) {
        let body = try fixture.file("body-\(UUID().uuidString).json", try JSONSerialization.data(withJSONObject: json))
        return try await curl(fixture, ["-X", "POST", "-H", "content-type: application/json", "--data-binary", "@\(body)", "https://127.0.0.1:\(port)\(route)"])
    }

    /// Has the receiver's own identity — which the fixture's `courier nearby send` shares — trusted.
    static func trustOwnSender(_ fixture: NearbyFixture, receiver: BackgroundProcess) async throws {
        let line = try #require(receiver.errors.range(of: #"fingerprint [0-9A-Fa-f]{64}"#, options: .regularExpression), "\(receiver.errors)")
        let fingerprint = String(receiver.errors[line].dropFirst("fingerprint ".count))
        let trusted = try await fixture.nearby(["trust", fingerprint, "--alias", "my other computer"])
        try #require(trusted.status == 0, "\(trusted.errors)")
    }

    @Test func aLinkFromATrustedSenderIsStillAskedAndThenOpensInItsAppThroughTheBroker() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--trusted-only"])
        #expect(receiver.errors.contains("text messages: always asked with a desktop notification"), "\(receiver.errors)")
        try await Self.trustOwnSender(fixture, receiver: receiver)

        let sent = try await Self.sendText(fixture, Self.link, port: port)
        #expect(sent.status == 0, "\(sent)\n\(receiver.errors)")
        #expect(sent.output.contains("\"text\":\"shown\""), "\(sent.output)")
        // Trusted, and asked all the same: the link, and what opening it does.
        let notify = try #require(server.notifications.first, "a trusted sender's link was not put to the person: \(server.calls)")
        #expect((notify["summary"] as? String)?.hasPrefix("Link from ") == true, "\(notify)")
        #expect(notify["actions"] as? [String] == ["accept", "Open link", "decline", "Decline"], "\(notify)")
        #expect((notify["body"] as? String)?.contains(Self.link) == true, "\(notify)")
        #expect((notify["body"] as? String)?.contains("trusted") == true, "\(notify)")
        // The app got it through the broker, with who sent it.
        let tasks = try await Self.tasks(fixture)
        #expect(tasks.contains("Buy milk"), "\(tasks)\n\(receiver.errors)")
        #expect(receiver.errors.contains("the user opened the link"), "\(receiver.errors)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty, "a message is not a file: \(fixture.contents(of: fixture.inbox()))")
    }

    @Test func aDeclinedOrUnansweredLinkOpensNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "decline")
        let (receiver, port) = try await fixture.startReceiver(["--trusted-only", "--ask-timeout", "2"])
        try await Self.trustOwnSender(fixture, receiver: receiver)

        // A long link is shown whole: what would be opened is all there to read.
        let long = Self.link + "&x=" + String(repeating: "a", count: 600) + "#the-end-is-shown"
        let declined = try await Self.sendText(fixture, long, port: port)
        #expect(declined.status == 1, "\(declined)")
        #expect((server.notifications.first?["body"] as? String)?.contains("a#the-end-is-shown") == true, "\(server.calls)")
        #expect(declined.errors.contains("declined"), "\(declined.errors)")
        #expect(receiver.errors.contains("refused: 403 the user declined the text message"), "\(receiver.errors)")
        #expect(server.notifications.count == 1, "\(server.calls)")

        // Nobody answers: after --ask-timeout, the same refusal.
        server.stop()
        let silent = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "none")
        defer { silent.stop() }
        let unanswered = try await Self.sendText(fixture, "todolist://www.acme.com?Unanswered", port: port)
        #expect(unanswered.status == 1, "\(unanswered)")
        #expect(silent.notifications.count == 1, "\(silent.calls)")

        // The app never got either: nothing launched it, its list is empty.
        let tasks = try await Self.tasks(fixture)
        #expect(!tasks.contains("Buy milk") && !tasks.contains("Unanswered"), "\(tasks)")
        #expect(!receiver.errors.contains("opened the link"), "\(receiver.errors)")
    }

    /// Escape sequences, a bidi override and newlines that would write a fake prompt: on the real
    /// terminal the person sees them escaped, never acted on, and the accepted text is printed
    /// escaped too.
    @Test func hostileTextIsShownCleanOnTheTerminalAndPrintedCleanOnceAccepted() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (terminal, port) = try await ConsentPromptTests.startOnTerminal(fixture, answer: "y")
        defer { terminal.signal(SIGTERM) }
        #expect(terminal.output.contains("text messages: always asked on this terminal"), "\(terminal.output)")
        let hostile = "\u{1B}[2J\u{1B}[H\u{1B}]0;owned\u{07}Pay \u{202E}gnp.exe\nAccept? [y/N] y\r\n\u{9B}31mred"
        let sent = try await Self.sendText(fixture, hostile, port: port)
        #expect(sent.status == 0, "\(sent)\n\(terminal.output)")
        let shown = try await ConsentPromptTests.output(of: terminal, once: "shown to the user")
        // Nothing the terminal would act on reached it; each character is there as its escape.
        for raw in ["\u{1B}", "\u{202E}", "\u{9B}", "\u{07}"] {
            #expect(!shown.unicodeScalars.contains(raw.unicodeScalars.first!), "\(raw.debugDescription) reached the terminal: \(shown.debugDescription)")
        }
        #expect(shown.contains(#"\u{001B}[2J\u{001B}[H"#), "\(shown)")
        #expect(shown.contains(#"Pay \u{202E}gnp.exe\u{000A}Accept? [y/N] y\u{000D}\u{000A}"#), "\(shown)")
        #expect(shown.contains("sends a text:"), "\(shown)")
        // Printed once accepted: escaped, on one line.
        #expect(shown.components(separatedBy: #"\u{009B}31mred"#).count >= 3, "shown in the prompt and printed: \(shown)")
    }

    @Test func aPINReceiverWantsItsPINForAMessageAndStillAsks() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--pin", "24682468"])
        let noPIN = try await Self.sendText(fixture, Self.link, port: port)
        #expect(noPIN.status == 1 && noPIN.errors.contains("wants its PIN"), "\(noPIN)")
        let wrong = try await Self.sendText(fixture, Self.link, port: port, ["--pin", "11111111"])
        #expect(wrong.status == 1 && wrong.errors.contains("wants its PIN"), "\(wrong)")
        #expect(server.notifications.isEmpty, "asked before the PIN was given: \(server.calls)")
        var tasks = try await Self.tasks(fixture)
        #expect(!tasks.contains("Buy milk"), "\(tasks)")

        // The right PIN lets the message in — to the question, not past it.
        for _ in 0..<100 {
            let sent = try await Self.sendText(fixture, Self.link, port: port, ["--pin", "24682468"])
            if !sent.errors.contains("too many attempts") {
                #expect(sent.status == 0, "\(sent)\n\(receiver.errors)")
                break
            }
            try await Task.sleep(for: .milliseconds(200))   // the back-off after the wrong PIN
        }
        #expect(server.notifications.count == 1, "\(server.calls)")
        #expect((server.notifications.first?["body"] as? String)?.contains("gave the PIN") == true, "\(server.calls)")
        tasks = try await Self.tasks(fixture)
        #expect(tasks.contains("Buy milk"), "\(tasks)\n\(receiver.errors)")
    }

    /// A web link no Courier app owns goes to the desktop the way `courier open` hands it on (here
    /// `xdg-open`, which finds no handler in the empty XDG folders and runs `$BROWSER`: a program
    /// that records what it was given); a `mailto:` link no app owns is not handed on.
    @Test func anAcceptedWebLinkGoesToTheDesktopAsCourierOpenHandsItOnAndOtherSchemesDoNot() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let empty = fixture.root.appendingPathComponent("empty", isDirectory: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let recorded = fixture.root.appendingPathComponent("browser-arguments")
        let browser = try fixture.file("browser", Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(recorded.path).tmp' && mv '\(recorded.path).tmp' '\(recorded.path)'\n".utf8))
        chmod(browser, 0o755)
        let environment = fixture.environment.merging(["BROWSER": browser, "XDG_DATA_DIRS": empty.path, "XDG_CONFIG_DIRS": empty.path]) { $1 }
        let receiver = try BackgroundProcess(Products.path("courier-nearby"), ["receive", "--bind", "127.0.0.1", "--port", "0", "--no-discovery"],
                                             environment: environment, outputIn: fixture.root, name: "receiver-with-browser")
        defer { NearbyFixture.stop(receiver) }
        for _ in 0..<1000 where receiver.errors.range(of: #"on https://127\.0\.0\.1:\d+"#, options: .regularExpression) == nil && receiver.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        let started = try #require(receiver.errors.range(of: #"on https://127\.0\.0\.1:\d+"#, options: .regularExpression), "\(receiver.errors)")
        let port = try #require(Int(receiver.errors[started].split(separator: ":").last ?? ""))

        let web = "https://example.org/menu?day=friday#soup"
        let sent = try await Self.sendText(fixture, web, port: port)
        #expect(sent.status == 0, "\(sent)\n\(receiver.errors)")
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: recorded.path) { try await Task.sleep(for: .milliseconds(20)) }
        #expect((try? String(contentsOf: recorded, encoding: .utf8)) == web + "\n", "\(receiver.errors)")
        #expect(receiver.errors.contains("with the desktop (xdg-open)"), "\(receiver.errors)")

        let mail = try await Self.sendText(fixture, "mailto:someone@example.org", port: port)
        #expect(mail.status == 1, "\(mail)")
        #expect(mail.errors.contains("only http and https links from a nearby device go to the desktop"), "\(mail.errors)")
        #expect(server.notifications.count == 2, "both were put to the person first: \(server.calls)")
    }

    /// Protocol v1: a message to a v1-only receiver (the one `ProtocolVersionTests` writes from
    /// the v1 specification, which takes every file) is uploaded as the text file it answered a
    /// token for; a v1 sender's message (`fileType` "text", by curl) is asked about and answered 204.
    @Test func messagesTravelOverProtocolV1BothWays() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--pin", BadInputTests.pin])
        let (v1, v1Port, folder) = try await ProtocolVersionTests.startV1Receiver(fixture)
        defer { v1.kill() }
        let sent = try await fixture.nearby(["send", "--text", "see you at 8", "--to-device", "http://127.0.0.1:\(v1Port)", "--json"])
        #expect(sent.status == 0, "\(sent)")
        #expect(sent.output.contains("\"text\":\"uploaded-as-file\""), "\(sent.output)")
        let stored = fixture.contents(of: folder)
        #expect(stored.count == 1 && stored.first?.hasSuffix(".txt") == true, "\(stored)")
        #expect(stored.first.flatMap { FileManager.default.contents(atPath: folder.appendingPathComponent($0).path) } == Data("see you at 8".utf8))

        let link = "todolist://www.acme.com?From%20v1"
        let message: [String: Any] = ["id": "m1", "fileName": "m1.txt", "size": link.utf8.count, "fileType": "text", "preview": link]
        let answered = try await Self.post(fixture, port: port, "/api/localsend/v1/send-request?pin=\(BadInputTests.pin)", json: BadInputTests.Receiver.prepare([message]))
        #expect(answered.status == 204, "\(answered)\n\(receiver.errors)")
        #expect(server.notifications.count == 1, "\(server.calls)")
        let tasks = try await Self.tasks(fixture)
        #expect(tasks.contains("From v1"), "\(tasks)")
    }

    /// A message longer than the limit is refused at the body check (413), before the PIN, the
    /// session slot or the person; `send` refuses one before sending anything.
    @Test func aHugeMessageIsRefusedWithANamedErrorBeforeAnyoneIsAsked() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--pin", BadInputTests.pin])
        #expect(receiver.errors.contains("text messages: always asked with a desktop notification"), "\(receiver.errors)")
        let huge = String(repeating: "https://example.org/", count: 3500)   // 70,000 bytes
        var file = BadInputTests.Receiver.file("m1", "m1.txt", size: huge.utf8.count)
        file["preview"] = huge
        let refused = try await Self.post(fixture, port: port, "/api/localsend/v2/prepare-upload?pin=\(BadInputTests.pin)", json: BadInputTests.Receiver.prepare([file]))
        #expect(refused.status == 413, "\(refused)")
        #expect(refused.body.contains("a text message may be at most 64 KiB"), "\(refused.body)")
        #expect(receiver.errors.contains("refused: 413 the text message is 68 KiB"), "\(receiver.errors)")

        let local = try await fixture.nearby(["send", "--text", huge, "--to-device", "127.0.0.1:\(port)", "--pin", BadInputTests.pin])
        #expect(local.status == 1 && local.errors.contains("a text message may be at most 64 KiB"), "\(local)")
        #expect(server.notifications.isEmpty, "\(server.calls)")
        // The receiver still takes a message of the limit's size, and asks about it.
        let largest = String(repeating: "a", count: 64 * 1024)
        let accepted = try await fixture.nearby(["send", "--text", largest, "--to-device", "127.0.0.1:\(port)", "--pin", BadInputTests.pin])
        #expect(accepted.status == 0, "\(accepted.errors)\n\(receiver.errors)")
        #expect(server.notifications.count == 1, "\(server.calls)")
        #expect((server.notifications.first?["body"] as? String)?.contains("(65036 more characters)") == true, "\(server.calls)")
    }

    /// Nobody to ask (no terminal, no notification server): a message is refused, even from a
    /// trusted sender, and nothing is opened.
    @Test func withNobodyToAskAMessageIsRefusedEvenFromATrustedSender() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (receiver, port) = try await fixture.startReceiver(["--trusted-only"])
        #expect(receiver.errors.contains("text messages: refused (nobody to ask)"), "\(receiver.errors)")
        try await Self.trustOwnSender(fixture, receiver: receiver)
        let sent = try await Self.sendText(fixture, Self.link, port: port)
        #expect(sent.status == 1, "\(sent)")
        #expect(receiver.errors.contains("nobody can be asked about a text message"), "\(receiver.errors)")
        let tasks = try await Self.tasks(fixture)
        #expect(!tasks.contains("Buy milk"), "\(tasks)")
    }

    /// The share sheet: one URL to a nearby device is a text message; accepted there, the link
    /// reaches the app.
    @Test func aURLSharedToANearbyDeviceArrivesAtItsAppOnceAccepted() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver([])
        let listed = try await fixture.run(Products.path("courier"), ["share", Self.link, "--list"])
        #expect(listed.output.contains("nearby\t"), "\(listed)")
        let shared = try await fixture.run(Products.path("courier"), ["share", Self.link, "--activity", "nearby", "--to-device", "127.0.0.1:\(port)", "--json"])
        #expect(shared.status == 0, "\(shared)\n\(receiver.errors)")
        #expect(shared.output.contains("\"shared\":true"), "\(shared)")
        #expect(server.notifications.contains { ($0["body"] as? String)?.contains(Self.link) == true }, "\(server.calls)")
        let tasks = try await Self.tasks(fixture)
        #expect(tasks.contains("Buy milk"), "\(tasks)\n\(receiver.errors)")
    }
}
