import BusTestSupport
import Courier
import DBus
import Foundation
import Testing
import CourierProtocol

/// Large annotations through a real broker to a real app process (`courier-test-app payload`, which
/// returns what it received): 4 MiB arrives intact; 64 MiB is refused with `LimitsExceeded` before
/// anything is launched or delivered, and the broker goes on serving. (How fast: `courier-bench
/// payload`; tests assert no times.)
@Suite("Large payloads", .serialized)
struct LargePayloadTests {
    static let bundleID = "org.example.test.payload"

    static func fixture() async throws -> BrokerFixture {
        try await BrokerFixture { try $0.write(bundleID, schemes: ["payload"], arguments: [Products.path("courier-test-app"), "payload"]) }
    }

    @Test func aFourMiBAnnotationArrivesIntact() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let result = try await fixture.client.open("payload://x?echo", options: OpenRequestOptions(annotation: .bytes(payload)))
        #expect(result.handled)
        #expect(result.reply["size"]?.uint64Value == 4 << 20)
        #expect(result.reply["annotation"]?.bytesValue == payload, "the app returned other bytes than it was sent")
        // A 4 MiB string too (the other way a caller passes text).
        let text = String(repeating: "0123456789abcdëf", count: 4 << 16)   // 4.25 MiB
        let again = try await fixture.client.open("payload://x?echo", options: OpenRequestOptions(annotation: .string(text)))
        #expect(again.reply["annotation"]?.stringValue == text)
        #expect(fixture.launcher.count == 1)
    }

    /// 64 MiB through the library: `LimitsExceeded` before anything is sent. 64 MiB on the raw
    /// contract — as much as one D-Bus array can carry inside the options' `a{sv}` — is answered
    /// `LimitsExceeded` by the broker, which launches nothing and answers the next request.
    @Test func sixtyFourMiBAreRefusedWithLimitsExceededAndTheBrokerGoesOn() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        do {
            let result = try await fixture.client.open("payload://x?size", options: OpenRequestOptions(annotation: .bytes([UInt8](repeating: 0x5a, count: 64 << 20))))
            Issue.record("a 64 MiB annotation was delivered: \(result.handled)")
        } catch {
            #expect(error.code == .limitsExceeded, "\(error)")
            #expect(error.message.contains("16 MiB") && error.message.contains("as a file"), "\(error.message)")
        }
        // The options dictionary is itself an array: its 64 MiB hold the annotation and its key.
        let raw = DBusValue.bytes([UInt8](repeating: 0x5a, count: (64 << 20) - 64))
        await #expect {
            _ = try await fixture.client.connection.call(
                "org.courier.Broker", path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "OpenURL",
                [.string("payload://x?size"), .vardict(["annotation": raw])], timeout: .seconds(60))
        } throws: { error in
            (error as? DBusError)?.name == "org.courier.Error.LimitsExceeded" && (error as? DBusError)?.message.contains("16 MiB") == true
        }
        #expect(fixture.launcher.count == 0, "nothing is launched for a refused request")
        let next = try await fixture.client.open("payload://x?size", options: OpenRequestOptions(annotation: .bytes([1, 2, 3])))
        #expect(next.handled && next.reply["size"]?.uint64Value == 3)
        #expect(fixture.launcher.count == 1)
    }
}
