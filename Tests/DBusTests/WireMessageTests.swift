import BusTestSupport
import CDBus
import Foundation
@testable import DBus
import Testing

/// `WireMessage` against libdbus's own iterator, the oracle: for the same header and values, the
/// message demarshalled from the Swift-written bytes has the same header (type, flags, fields,
/// signature) and byte-for-byte the same body as the one libdbus builds, and decodes to the values.
/// Then such messages through a real dbus-daemon, to a Swift and to a python-dbus peer.
@Suite struct WireMessageTests {
    /// Every type and container shape, alignment traps included (a `y` before an `x`, an empty array
    /// of 8-aligned structures, a variant holding a structure, strings of every length modulo 4).
    static let values: [DBusValue] = TypeRoundTripTests.values + [
        .structure([.byte(1), .int64(-2), .byte(3), .uint16(4), .double(0.5)]),
        .array(.structure([.int64, .byte]), []),
        .array(.int64, []),
        .variant(.structure([.byte(9), .uint64(10)])),
        .string("a"), .string("ab"), .string("abc"), .string("abcd"), .string("abcde"),
        .bytes([]), .bytes([1, 2, 3]),
        .dictionary(key: .byte, value: .double, [DBusDictEntry(.byte(1), .double(2)), DBusDictEntry(.byte(3), .double(4))]),
    ]

    /// Bodies of 3 to 6 arguments drawn from `values` with a fixed generator (the same bodies every run).
    static let bodies: [[DBusValue]] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var out: [[DBusValue]] = [
            [.string("todolist://www.acme.com?Quarterly%20Report#200806231300"), .string("com.acme.todolist"),
             .variant(.string("")), .vardict(["sourceApplication": .string(""), "annotation": .variant(.bytes([1, 2]))])],
            [.boolean(true), .string(""), .vardict([:])],
        ]
        for _ in 0..<300 {
            let count = 3 + next() % 4
            out.append((0..<count).map { _ in values[next() % values.count] })
        }
        return out
    }()

    static let call = WireMessage.Header(
        type: cdbus_message_type_method_call(), path: "/org/courier/App", interface: "org.courier.App1",
        member: "OpenURL", destination: BusName(unchecked: ":1.42"))

    @Test func methodCallsMatchLibdbusByteForByte() throws {
        for body in Self.bodies {
            let fromIterator = try #require(iteratorMessage(Self.call, body))
            let fromBytes = try #require(WireMessage.demarshal(Self.call, body: body), "libdbus refused the bytes for \(signature(body))")
            defer { dbus_message_unref(fromIterator); dbus_message_unref(fromBytes) }
            try expectSame(fromBytes, fromIterator, body)
        }
    }

    @Test func methodReturnsAndSignalsMatchLibdbus() throws {
        let reply = WireMessage.Header(type: cdbus_message_type_method_return(), replySerial: 77, destination: BusName(unchecked: ":1.7"))
        let signal = WireMessage.Header(
            type: cdbus_message_type_signal(), path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "ApplicationStateChanged")
        for header in [reply, signal] {
            for body in Self.bodies.prefix(40) {
                let fromIterator = try #require(iteratorMessage(header, body))
                let fromBytes = try #require(WireMessage.demarshal(header, body: body))
                defer { dbus_message_unref(fromIterator); dbus_message_unref(fromBytes) }
                try expectSame(fromBytes, fromIterator, body)
            }
        }
    }

    @Test func theIteratorKeepsWhatTheBytesCannotCarryOrWouldNotSpeedUp() throws {
        #expect(WireMessage.make(Self.call, body: [.string("a"), .string("b")]) == nil)
        #expect(WireMessage.make(Self.call, body: [.string("a"), .string("b"), .bytes(Array(repeating: 7, count: 70_000))]) == nil)
        let fd = UnixFD(taking: open("/dev/null", O_RDONLY | O_CLOEXEC))
        #expect(WireMessage.make(Self.call, body: [.string("a"), .string("b"), .unixFD(fd)]) == nil)
        #expect(WireMessage.make(Self.call, body: [.string("a"), .variant(.unixFD(fd)), .string("c")]) == nil)
        let made = try #require(WireMessage.make(Self.call, body: [.string("a"), .string("b"), .string("c")]))
        dbus_message_unref(made)
    }

    static let fourArgumentBodies: [[DBusValue]] = [
        [.string("todolist://www.acme.com?Quarterly%20Report#200806231300"), .string("com.acme.todolist"),
         .variant(.string("")), .vardict(["sourceApplication": .string(""), "annotation": .variant(.bytes([1, 2, 3]))])],
        [.string(""), .string("grüße, 世界 🚀"), .variant(.structure([.byte(1), .int64(-2)])), .vardict([:])],
        [.string("a"), .string("ab"), .variant(.array(.int64, [])), .vardict(["x": .double(0.25), "y": .vardict(["z": .uint16(3)])])],
    ]

    /// Four-argument calls and replies through a real dbus-daemon: a Swift service answers with its
    /// arguments (built whole on both sides), and a python-dbus service (libdbus read by another
    /// binding, its values rebuilt by Python) answers with the first one upper-cased.
    @Test func manyArgumentMessagesCrossARealBus() async throws {
        try await EchoService.withClient { client, bus in
            let python = try Tool.start(PythonPeers.python, [PythonPeers.path("four_arguments_service.py"), bus.address], environment: bus.environment)
            defer { python.kill() }
            for body in Self.fourArgumentBodies {
                let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoFour", body)
                #expect(r == body)
            }
            let name: BusName = "org.courier.test.PyFour"
            var owner: BusName?
            for _ in 0..<200 where owner == nil {
                owner = try await client.nameOwner(of: name)
                if owner == nil { try await Task.sleep(for: .milliseconds(25)) }
            }
            try #require(owner != nil, "the Python service did not take its name")
            for body in Self.fourArgumentBodies {
                let r = try await client.call(name, path: "/org/courier/test/Py", interface: "org.courier.test.Py1", method: "Four", body)
                #expect(r == [.string(body[0].stringValue!.uppercased())] + body.dropFirst())
            }
        }
    }


    // MARK: Helpers

    private func signature(_ body: [DBusValue]) -> String { body.map(\.type.signature).joined() }

    /// The message libdbus builds for `header` through its own constructor for that type
    /// (`dbus_message_new_method_call`, `_new_signal`, `_new_method_return` to a call from the
    /// destination with the reply serial), so its flags and fields are libdbus's, not read back
    /// from `header`, and then its append iterator.
    private func iteratorMessage(_ header: WireMessage.Header, _ body: [DBusValue]) -> OpaquePointer? {
        let m: OpaquePointer?
        switch header.type {
        case cdbus_message_type_method_call():
            m = dbus_message_new_method_call(header.destination?.rawValue, header.path!.rawValue, header.interface?.rawValue, header.member!.rawValue)
        case cdbus_message_type_signal():
            m = dbus_message_new_signal(header.path!.rawValue, header.interface!.rawValue, header.member!.rawValue)
        default:
            guard let call = dbus_message_new_method_call(nil, "/", nil, "Call") else { return nil }
            defer { dbus_message_unref(call) }
            _ = dbus_message_set_sender(call, header.destination?.rawValue)
            dbus_message_set_serial(call, header.replySerial!)
            m = dbus_message_new_method_return(call)
        }
        guard let m else { return nil }
        guard MessageCodec.append(body, to: m) else {
            dbus_message_unref(m)
            return nil
        }
        return m
    }

    private func expectSame(_ a: OpaquePointer, _ b: OpaquePointer, _ body: [DBusValue]) throws {
        // The sender numbers a demarshalled message like any other (libdbus leaves it unlocked).
        dbus_message_set_serial(a, 5)
        dbus_message_set_serial(b, 5)
        #expect(dbus_message_get_serial(a) == 5)
        #expect(dbus_message_get_type(a) == dbus_message_get_type(b))
        #expect(dbus_message_get_no_reply(a) == dbus_message_get_no_reply(b))
        #expect(dbus_message_get_auto_start(a) == dbus_message_get_auto_start(b))
        #expect(dbus_message_get_reply_serial(a) == dbus_message_get_reply_serial(b))
        for get in [dbus_message_get_path, dbus_message_get_interface, dbus_message_get_member, dbus_message_get_destination, dbus_message_get_signature] {
            #expect(get(a).map { String(cString: $0) } == get(b).map { String(cString: $0) })
        }
        let (bytesA, bytesB) = (try marshalledBody(a), try marshalledBody(b))
        #expect(bytesA == bytesB, "body bytes differ for \(signature(body))")
        #expect(MessageCodec.decodeBody(a) == body)
    }

    /// The body as libdbus puts it on the wire: the last `body length` bytes of the marshalled message.
    private func marshalledBody(_ m: OpaquePointer) throws -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        try #require(dbus_message_marshal(m, &data, &length) != 0)
        defer { dbus_free(data) }
        let all = UnsafeRawBufferPointer(start: data, count: Int(length))
        let bodyLength = Int(all.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
        return Array(all.suffix(bodyLength))
    }
}
