import BusTestSupport
@testable import CourierNearby
import Crypto
import Foundation
import Testing

/// `BrokerDelivery` from outside: a real receiver, a real broker and curl as the sender. The app is
/// chosen at `prepare-upload` from the file's name and announced type; once the bytes are in, the
/// broker checks their content against that app's declared types as it checks any drop's.
@Suite(.serialized) struct BrokerDeliveryTests {
    static let png = Data(SampleContent.png)

    /// Uploads the PNG announced as `photo.txt` (text/plain) and expects it refused by content,
    /// with nothing left in the Inbox or the staging folder.
    private func expectPNGNamedTextRefused(_ receiver: BadInputTests.Receiver) async throws {
        let (session, token) = try await receiver.session(name: "photo.txt", size: Self.png.count)
        let answer = try await receiver.upload(session, token: token, data: Self.png)
        #expect(answer.status == 403, "a PNG named .txt is not text: \(answer)")
        #expect(answer.body.contains("public.png"), "the refusal names the type the content has: \(answer)")
        #expect(receiver.fixture.contents(of: receiver.fixture.inbox()).isEmpty, "\(receiver.fixture.contents(of: receiver.fixture.inbox()))")
        #expect(receiver.fixture.contents(of: receiver.fixture.staging).isEmpty, "\(receiver.fixture.contents(of: receiver.fixture.staging))")
        try await receiver.expectCleanAndServing("after a refused PNG named .txt")
    }

    @Test func aPNGNamedTxtIsRefusedByContentForTheAppNamedWithTo() async throws {
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        try await expectPNGNamedTextRefused(receiver)
    }

    @Test func aPNGNamedTxtIsRefusedByContentForTheAppChosenByItsName() async throws {
        let receiver = try await BadInputTests.Receiver(to: nil)
        defer { receiver.tearDown() }
        try await expectPNGNamedTextRefused(receiver)
    }

    @Test func anAnnouncedTypeNoAppDeclaresIsRefusedAtPrepareUpload() async throws {
        let receiver = try await BadInputTests.Receiver(to: nil)
        defer { receiver.tearDown() }
        var file = BadInputTests.Receiver.file("p", "photo", size: 10)
        file["fileType"] = "image/png"
        let answer = try await receiver.post("prepare-upload?pin=\(BadInputTests.pin)", json: BadInputTests.Receiver.prepare([file]))
        #expect(answer.status == 403 && answer.body.contains("no app on this receiver accepts"), "\(answer)")
        #expect(answer.body.contains("public.png"), "\(answer)")
        try await receiver.expectCleanAndServing("after a refused prepare-upload")
    }

    @Test func aPNGNamedTxtFromLocalsendCLIIsRefusedAndLeavesNothing() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let cli = try await fixture.trustLocalsendCLI()
        let (receiver, port) = try await fixture.startReceiver(["--trusted-only"])
        let photo = try fixture.file("photo.txt", Self.png)
        let sent = try await fixture.run(cli, ["send", "127.0.0.1", photo, "--port", String(port), "--json"])
        #expect(!sent.output.contains("\"event\": \"sent\""), "\(sent.output)\(sent.errors)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty, "\(fixture.contents(of: fixture.inbox()))")
        #expect(fixture.contents(of: fixture.staging).isEmpty, "\(fixture.contents(of: fixture.staging))")
        #expect(receiver.errors.contains("public.png"), "\(receiver.errors)")
    }
    /// A body of several MiB, not a multiple of the 1 MiB buffers the server gathers body parts
    /// into (`RequestBodyGatherer`), sent with a Content-Length and chunked, each with its SHA-256
    /// announced: each lands whole, byte for byte.
    @Test func bodiesOfSeveralMiBArriveByteForByteWithALengthOrChunked() async throws {
        let receiver = try await BadInputTests.Receiver()
        defer { receiver.tearDown() }
        let text = Data((0..<110_000).map { "line \($0): the quick brown fox jumps over the lazy dog\n" }.joined().utf8)
        #expect(text.count > 5 << 20 && text.count % (1 << 20) != 0)
        for (name, extra) in [("sized.txt", [String]()), ("chunked.txt", ["-H", "Transfer-Encoding: chunked"])] {
            let hash = SHA256.hash(data: text).hex
            let (session, token) = try await receiver.session(name: name, size: text.count, sha256: hash)
            let answer = try await receiver.upload(session, token: token, data: text, extra: extra)
            #expect(answer.status == 200, "\(name): \(answer)")
            let placed = receiver.fixture.inbox().appendingPathComponent(name)
            #expect(FileManager.default.contents(atPath: placed.path) == text, "\(name) differs from what was sent")
        }
    }

    /// An app slow to answer its open (`courier-test-app lifecycle --hold-while`: it answers once
    /// the test removes a file). The upload answers once the file is durably in the Inbox while the
    /// app still holds its open; the app then gets the file, and the broker's log says what it
    /// answered. An upload that waited for the app would wait until the broker's own deadline for
    /// the app (25 s) passed: past this test's bound for the upload (20 s), and the broker would
    /// have given up on the app before it answered.
    static let slow = "com.acme.slow"

    /// A receiver for ``slow``, an app that holds every open until the test removes `hold` in the
    /// fixture's root (`courier-test-app lifecycle --hold-while`).
    static func receiverForTheSlowApp() async throws -> BadInputTests.Receiver {
        try await BadInputTests.Receiver(to: slow, brokerLogLevel: "info") { root in
            let hold = root.appendingPathComponent("hold")
            try Data().write(to: hold)
            let plist: [String: Any] = [
                "CFBundleIdentifier": slow, "CFBundleName": "Slow",
                "CFBundleDocumentTypes": [["CFBundleTypeName": "Text", "LSItemContentTypes": ["public.plain-text"], "CFBundleTypeRole": "Viewer"]],
                "CourierLaunchArguments": [Products.path("courier-test-app"), "lifecycle", "--hold-while", hold.path],
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: root.appendingPathComponent("manifests/\(slow).plist"))
        }
    }

    @Test func theUploadAnswersOnceTheFileIsInTheInboxNotWhenTheSlowAppAnswers() async throws {
        let slow = Self.slow
        let receiver = try await Self.receiverForTheSlowApp()
        defer { receiver.tearDown() }
        let fixture = receiver.fixture
        let data = Data("answered before the app\n".utf8)
        let (session, token) = try await receiver.session(name: "slow.txt", size: data.count)
        let answer = try await receiver.upload(session, token: token, data: data, extra: ["--max-time", "20"])
        #expect(answer.status == 200, "the upload answers without waiting for the app: \(answer)\n\(fixture.courierd.errors)")
        let placed = fixture.inbox(slow).appendingPathComponent("slow.txt")
        #expect(FileManager.default.contents(atPath: placed.path) == data, "\(fixture.contents(of: fixture.inbox(slow)))")

        // The app got the file and holds its answer; the broker has logged no answer.
        let events = fixture.inbox(slow).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("events")
        let url = placed.absoluteURL.absoluteString
        func recorded() -> String { (try? String(contentsOf: events, encoding: .utf8)) ?? "" }
        for _ in 0..<1000 where !recorded().contains("hold \(url)") { try await Task.sleep(for: .milliseconds(20)) }
        #expect(recorded().contains("hold \(url)"), "the app never got \(url): \(recorded())\n\(fixture.courierd.errors)")
        #expect(!fixture.courierd.errors.contains("opened \(placed.path)"), "\(fixture.courierd.errors)")

        try FileManager.default.removeItem(at: fixture.root.appendingPathComponent("hold"))
        let logged = "\(slow) opened \(placed.path) (dropped by"
        for _ in 0..<1000 where !fixture.courierd.errors.contains(logged) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(fixture.courierd.errors.contains(logged), "the broker's log says what the app answered: \(fixture.courierd.errors)")
        #expect(recorded().contains("open \(url)"), "\(recorded())")
        #expect(receiver.process.errors.contains("\"slow.txt\" → \(placed.path)"), "\(receiver.process.errors)")
    }

    /// More files in one session than the broker lets one caller have unanswered at once (64), to
    /// an app that holds every open: `courier nearby send` of 100 files hears success, and each
    /// file is in the Inbox once, whole, while the app has answered none. Once the app is let go it
    /// gets every file.
    @Test func aHundredFilesInOneSessionToASlowAppAreAllDeliveredAndTheSenderHearsSuccess() async throws {
        let slow = Self.slow
        let receiver = try await Self.receiverForTheSlowApp()
        defer { receiver.tearDown() }
        let fixture = receiver.fixture
        let count = 100
        var sent: [String: Data] = [:]
        var paths: [String] = []
        for index in 0..<count {
            let name = String(format: "note-%03d.txt", index)
            let data = Data("note \(index) for the slow app\n".utf8)
            sent[name] = data
            paths.append(try fixture.file(name, data))
        }
        let send = try await fixture.nearby(["send"] + paths + ["--to-device", "127.0.0.1:\(receiver.port)", "--pin", BadInputTests.pin, "--json"])
        #expect(send.status == 0, "the sender hears success for every file: \(send.output.suffix(600)) \(send.errors.suffix(600))\n\(receiver.process.errors.suffix(1200))\n\(fixture.courierd.errors.suffix(1200))")

        let inbox = fixture.inbox(slow)
        let landed = fixture.contents(of: inbox)
        #expect(landed.sorted() == sent.keys.sorted(), "each file once, under its own name: \(landed.count) files: \(landed.sorted().prefix(8))…")
        for (name, data) in sent {
            #expect(FileManager.default.contents(atPath: inbox.appendingPathComponent(name).path) == data, "\(name)")
        }
        #expect(fixture.contents(of: fixture.staging).isEmpty, "\(fixture.contents(of: fixture.staging))")
        #expect(!fixture.courierd.errors.contains("opened \(inbox.path)"), "the app was still holding its opens: \(fixture.courierd.errors.suffix(800))")

        // Let the app go: it answers every open (the broker logs each answer).
        try FileManager.default.removeItem(at: fixture.root.appendingPathComponent("hold"))
        func answered() -> Int { fixture.courierd.errors.components(separatedBy: "\(slow) opened \(inbox.path)/").count - 1 }
        for _ in 0..<3000 where answered() < count { try await Task.sleep(for: .milliseconds(20)) }
        #expect(answered() == count, "the app answered \(answered()) of \(count) opens: \(fixture.courierd.errors.suffix(1200))")
        #expect(receiver.process.exitStatus == nil, "\(receiver.process.errors)")
    }
}
