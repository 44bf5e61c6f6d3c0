import BusTestSupport
import DBus
import Testing

/// `ay` travels as `DBusValue.bytes`: one libdbus call and one copy each way (a 4 MiB annotation
/// used to cost a `DBusValue` and a libdbus call per byte), equal to its `.array(.byte, …)`
/// spelling, and bounded by D-Bus's 64 MiB array limit before libdbus sees it.
@Suite struct ByteArrayTests {
    /// 4 MiB of a pattern in which every byte value occurs, so a shifted or dropped byte shows.
    static let fourMiB: [UInt8] = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }

    @Test func fourMiBArriveIntactAsBytes() async throws {
        try await withEcho { client in
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant",
                [.variant(.bytes(Self.fourMiB))])
            guard case .variant(.bytes(let echoed))? = r.first else {
                Issue.record("expected a variant holding bytes, got \(r.first?.type.signature ?? "nothing")")
                return
            }
            #expect(echoed.count == Self.fourMiB.count)
            #expect(echoed == Self.fourMiB)
        }
    }

    @Test func anArrayOfByteValuesIsSentAsBytesAndEqualsThem() async throws {
        let spelled: DBusValue = .array(.byte, [.byte(0), .byte(7), .byte(255)])
        #expect(spelled == .bytes([0, 7, 255]))
        #expect(Set([spelled, .bytes([0, 7, 255])]).count == 1)
        #expect(spelled != .bytes([0, 7]))
        #expect(DBusValue.bytes([1]) != .array(.int32, [.int32(1)]))
        try await withEcho { client in
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant", [.variant(spelled)])
            #expect(r == [.variant(.bytes([0, 7, 255]))])
            #expect(r.first?.bytesValue == [0, 7, 255])
            #expect(r.first?.arrayValue == [.byte(0), .byte(7), .byte(255)])
        }
    }

    @Test func typedByteArraysMapToBytes() throws {
        #expect([UInt8](arrayLiteral: 1, 2).dbusValue == .bytes([1, 2]))
        #expect(try [UInt8](dbusValue: .bytes([3, 4])) == [3, 4])
        #expect(try [UInt8](dbusValue: .array(.byte, [.byte(5)])) == [5])
        #expect(throws: DBusError.self) { try [UInt32](dbusValue: .bytes([1])) }
    }

    /// libdbus aborts the process on an array above 64 MiB: the binding refuses it first, and the
    /// connection stays usable.
    @Test func anArrayAboveSixtyFourMiBIsRefusedBeforeLibdbus() async throws {
        try await withEcho { client in
            await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant",
                    [.variant(.bytes([UInt8](repeating: 1, count: (64 << 20) + 1)))])
            }
            let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [.string("still here")])
            #expect(r == [.string("still here")])
        }
    }

    /// A client connection and the echo service, on a private bus of their own.
    private func withEcho(_ body: (DBusConnection) async throws -> Void) async throws {
        try await EchoService.withClient { client, _ in try await body(client) }
    }
}
