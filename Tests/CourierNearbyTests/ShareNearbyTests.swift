import BusTestSupport
import Foundation
import Testing

/// The share sheet's nearby activity (docs/share.md): `courier share FILE --activity nearby
/// --to-device IP:PORT` runs `courier nearby send` to a real `courier nearby receive` on loopback,
/// whose consent is a desktop notification on the fixture's bus (`TestNotificationServer`).
@Suite("Sharing to a nearby device", .serialized)
struct ShareNearbyTests {
    static func share(_ fixture: NearbyFixture, _ file: String, port: Int) async throws -> (status: Int32, output: String, errors: String) {
        try await fixture.run(Products.path("courier"), ["share", file, "--activity", "nearby", "--to-device", "127.0.0.1:\(port)", "--json"])
    }

    @Test func aFileSharedToANearbyDeviceArrivesByteForByte() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "accept")
        defer { server.stop() }
        let (_, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        let file = try fixture.file("groceries.txt", Data("apples\npears\n".utf8))
        let shared = try await Self.share(fixture, file, port: port)
        #expect(shared.status == 0, "\(shared)")
        #expect(shared.output.contains("\"shared\":true"), "\(shared)")
        #expect(NearbyFixture.sha256(fixture.inbox().appendingPathComponent("groceries.txt").path) == NearbyFixture.sha256(file))
        // The receiving person was asked.
        #expect(server.notifications.contains { ($0["body"] as? String)?.contains("groceries.txt") == true }, "\(server.calls)")
    }

    @Test func aDeviceThatRefusesOrIsNotThereIsDeclinedAndNothingArrives() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "decline")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        let file = try fixture.file("groceries.txt", Data("apples\npears\n".utf8))
        let refused = try await Self.share(fixture, file, port: port)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.output.contains("org.courier.Error.Declined"), "\(refused)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)

        // The device has left: the same refusal, saying it could not be reached.
        NearbyFixture.stop(receiver)
        let gone = try await Self.share(fixture, file, port: port)
        #expect(gone.status == 1, "\(gone)")
        #expect(gone.errors.contains("could not be reached"), "\(gone)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)
    }

    /// The device leaves in the middle of the send: the receiver asked its person (the
    /// notification is up, the sender waits for the answer) and is killed there. The share ends
    /// `Declined`, saying the device could not be reached, and nothing arrives.
    @Test func aDeviceThatLeavesMidSendIsDeclinedAndNothingArrives() async throws {
        let fixture = try NearbyFixture()
        defer { fixture.tearDown() }
        try await fixture.waitForBroker()
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root, answer: "none")
        defer { server.stop() }
        let (receiver, port) = try await fixture.startReceiver(["--to", NearbyFixture.todolist])
        let file = try fixture.file("groceries.txt", Data("apples\npears\n".utf8))
        let share = Task { try await Self.share(fixture, file, port: port) }
        _ = try #require(await server.first { $0["call"] as? String == "Notify" }, "the receiver never asked: \(server.calls)")
        receiver.kill()
        let left = try await share.value
        #expect(left.status == 1, "\(left)")
        #expect(left.output.contains("org.courier.Error.Declined"), "\(left)")
        #expect(left.errors.contains("could not be reached"), "\(left)")
        #expect(fixture.contents(of: fixture.inbox()).isEmpty)
    }
}
