import BusTestSupport
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
}
