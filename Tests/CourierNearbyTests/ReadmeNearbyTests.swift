import BusTestSupport
import Foundation
import Testing

/// The README's two Nearby commands, run through `courier` (the front, then `courier-tool`, then
/// `courier-nearby`): receive into the todolist's Inbox with a PIN, send to it. On loopback, so
/// the receiver is bound to 127.0.0.1 without discovery, and the README's 192.168.1.20 is 127.0.0.1;
/// the loopback of a network namespace of the test's own, so that the README's default port
/// (53317) collides with no other test running at the same time.
@Suite("Nearby: the README's commands", .serialized)
struct ReadmeNearbyTests {
    @Test func receiveWithAPINAndSendWithIt() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let host = await IsolatedLoopback.make()
        let receive = host.command(Products.path("courier"), ["nearby", "receive", "--to", NearbyFixture.todolist, "--pin", "4711", "--bind", "127.0.0.1", "--no-discovery"])
        let receiver = try BackgroundProcess(receive.executable, receive.arguments, environment: fixture.environment, outputIn: fixture.root, name: "readme-receive")
        defer {
            NearbyFixture.stop(receiver)
            host?.remove()
        }
        for _ in 0..<500 where !receiver.errors.contains("receiving as") && receiver.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(receiver.errors.contains("on https://127.0.0.1:53317"), "\(receiver.errors)")

        let notes = try fixture.file("notes.txt", Data("water the plants\n".utf8))
        let send = host.command(Products.path("courier"), ["nearby", "send", notes, "--to-device", "127.0.0.1", "--pin", "4711"])
        let sent = try await fixture.run(send.executable, send.arguments)
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.contains("sent \(notes) to 127.0.0.1:53317"), "\(sent.output)")
        #expect(NearbyFixture.sha256(fixture.inbox().appendingPathComponent("notes.txt").path) == NearbyFixture.sha256(notes))

        // Without the PIN the same send is refused, saying what is missing.
        let sendWithoutPIN = host.command(Products.path("courier"), ["nearby", "send", notes, "--to-device", "127.0.0.1"])
        let refused = try await fixture.run(sendWithoutPIN.executable, sendWithoutPIN.arguments)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("wants its PIN"), "\(refused.errors)")
        #expect(fixture.contents(of: fixture.inbox()) == ["notes.txt"])
    }
}
