import BusTestSupport
import DBus
import Foundation
import Testing

/// Every D-Bus type, travelling Swift → bus → Swift service → bus → Swift inside a variant.
@Suite struct TypeRoundTripTests {
    static let values: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .uint16(.max), .int32(.min), .uint32(.max), .int64(.min), .uint64(.max),
        .double(-1.5), .double(.infinity),
        .string(""), .string("grüße, 世界 🚀"), .objectPath("/a/b_c/D9"), .objectPath("/"),
        .signature("a{sv}(ii)"), .signature(""),
        .strings([]), .strings(["a", "b"]),
        .array(.int32, [.int32(1), .int32(-2)]),
        .array(.array(.byte), [.array(.byte, []), .array(.byte, [.byte(1), .byte(2)])]),
        .vardict([:]),
        .vardict(["b": .boolean(true), "s": .string("x"), "nested": .vardict(["u": .uint32(7)])]),
        .dictionary(key: .uint64, value: .string, [DBusDictEntry(.uint64(1), .string("one"))]),
        .dictionary(key: .objectPath, value: .array(.string), []),
        .structure([.int32(1), .string("two"), .structure([.double(3), .variant(.boolean(false))])]),
        .array(.structure([.string, .variant]), [.structure([.string("k"), .variant(.int16(4))])]),
        .variant(.variant(.string("deep"))),
    ]

    @Test(arguments: values)
    func valueSurvivesRoundTrip(_ value: DBusValue) async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant",
                [.variant(value)])
            #expect(r == [.variant(value)])
        }
    }

    @Test func deepNestingWithinLimitsRoundTrips() async throws {
        var v: DBusValue = .int32(1)
        for _ in 0..<30 { v = .array(v.type, [v]) }
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant", [.variant(v)])
            #expect(r == [.variant(v)])
        }
    }

    @Test func largeStringRoundTrips() async throws {
        let big = String(repeating: "0123456789abcdef", count: 256 * 1024)  // 4 MiB
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [.string(big)])
            #expect(r.first?.stringValue?.utf8.count == big.utf8.count)
            #expect(r.first?.stringValue == big)
        }
    }

    @Test func fileDescriptorsArriveOpenAndOwned() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let readEnd = UnixFD(taking: fds[0])
        let writeEnd = UnixFD(taking: fds[1])
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            let count = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "CountFDs",
                [.fds([readEnd, writeEnd])])
            #expect(count == [.uint32(2)])
            // The echoed descriptor is a new, working duplicate of our write end.
            let r = try await client.call(
                EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoVariant",
                [.variant(.unixFD(writeEnd))])
            let echoed = try #require(r.first?.unixFDValue)
            #expect(echoed.rawValue != writeEnd.rawValue)
            let byte: [UInt8] = [42]
            #expect(write(echoed.rawValue!, byte, 1) == 1)
            var got: [UInt8] = [0]
            #expect(read(readEnd.rawValue!, &got, 1) == 1)
            #expect(got == [42])
            // Sending duplicated: our descriptors are still ours and open.
            #expect(fcntl(writeEnd.rawValue!, F_GETFD) != -1)
            let raw = echoed.take()!
            #expect(echoed.rawValue == nil)
            close(raw)
        }
    }

    @Test func closedDescriptorIsRejectedBeforeSending() async throws {
        let fd = try UnixFD(duplicating: 0)
        fd.close()
        try await withPrivateBus { bus in
            let client = try bus.connect()
            defer { client.close() }
            await #expect(throws: DBusError.self) {
                _ = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "CountFDs", [.fds([fd])])
            }
        }
    }
}
