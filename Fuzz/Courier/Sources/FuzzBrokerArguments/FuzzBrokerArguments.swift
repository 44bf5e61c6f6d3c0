import CDBus
@testable import CourierBroker
@testable import DBus

/// libFuzzer entry point for what the broker decodes from untrusted callers. The input is
/// `signature NUL body`: the harness wraps it in a method-call header (OpenURL on the broker's
/// object) as it arrives on the wire, libdbus validates it exactly as on receipt
/// (`dbus_message_demarshal`), the binding decodes it (`MessageCodec`, variants, dictionaries,
/// nesting), and the broker interprets the arguments as `OpenURL (s, a{sv})` and
/// `DropFiles (s, ah, as, a{sv})` do. Invariants: no trap; values survive an encode/decode round
/// trip through libdbus unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrokerArguments(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let nul = input.firstIndex(of: 0), nul <= 255 else { return 0 }
    let signature = Array(input[..<nul])
    let body = Array(input[(nul + 1)...])
    // File descriptors cannot travel in bytes: bodies declaring them are refused by libdbus anyway
    // (no fds attached), so skip the work.
    guard !signature.contains(UInt8(ascii: "h")) else { return 0 }
    let wire = WireMessage.methodCall(signature: signature, body: body)
    var error = DBusError_C()
    dbus_error_init(&error)
    let message = wire.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
    }
    guard let message else {
        dbus_error_free(&error)
        return 0
    }
    defer { dbus_message_unref(message) }
    let decoded = MessageCodec.decode(message)
    require(decoded.body.count <= body.count + 1, "more values than bytes")
    // A variant may still declare an fd ('h' inside 'v'); without attached fds it decodes as a
    // closed descriptor, which cannot be encoded again: no round trip for those.
    if !decoded.body.contains(where: containsFD) { roundTrip(decoded.body) }
    interpretAsBroker(decoded.body)
    return 0
}

typealias DBusError_C = CDBus.DBusError

/// What the broker's handlers read from their arguments (any signature: handlers only see
/// arguments whose signature matched, but the accessors must never trap on anything).
func interpretAsBroker(_ values: [DBusValue]) {
    for value in values { touch(value, depth: 0) }
    guard values.count >= 2 else { return }
    let url = values[0].stringValue ?? ""
    // A known key of the wrong type is refused (InvalidArguments), never a trap: that is the contract.
    guard let options = try? RequestOptions(values[values.count - 1].vardictValue ?? [:]) else { return }
    let request = BrokerService.request(url: url, options: options, sender: ":1.1")
    require(request.url == url, "the request changed the URL")
    _ = values[1].stringArrayValue
    _ = (values[1].arrayValue ?? []).compactMap(\.unixFDValue)
}

func containsFD(_ value: DBusValue) -> Bool {
    switch value {
    case .unixFD: true
    case .variant(let inner): containsFD(inner)
    case .structure(let fields): fields.contains(where: containsFD)
    case .array(_, let elements): elements.contains(where: containsFD)
    case .dictionary(_, _, let entries): entries.contains { containsFD($0.key) || containsFD($0.value) }
    default: false
    }
}

/// Every accessor on every nested value.
func touch(_ value: DBusValue, depth: Int) {
    require(depth < 200, "nesting beyond the D-Bus limit survived validation")
    _ = value.stringValue; _ = value.boolValue; _ = value.uint32Value; _ = value.int32Value
    _ = value.int64Value; _ = value.uint64Value; _ = value.doubleValue; _ = value.objectPathValue
    _ = value.stringArrayValue; _ = value.vardictValue; _ = value.description
    switch value {
    case .variant(let inner): touch(inner, depth: depth + 1)
    case .structure(let fields): for f in fields { touch(f, depth: depth + 1) }
    case .array(_, let elements): for e in elements { touch(e, depth: depth + 1) }
    case .dictionary(_, _, let entries):
        for e in entries { touch(e.key, depth: depth + 1); touch(e.value, depth: depth + 1) }
    default: break
    }
}

/// Values libdbus accepted encode again (binding → libdbus) and decode to the same values.
func roundTrip(_ values: [DBusValue]) {
    guard let message = dbus_message_new_method_call(nil, "/org/courier/Broker", "org.courier.Broker1", "OpenURL") else { return }
    defer { dbus_message_unref(message) }
    require(MessageCodec.append(values, to: message), "the binding cannot re-encode values libdbus accepted: \(values)")
    let again = MessageCodec.decodeBody(message)
    // NaN is not equal to itself: compare descriptions (which print NaN payloads) when == says no.
    require(again == values || "\(again)" == "\(values)", "round trip changed \(values) into \(again)")
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// A little-endian D-Bus method call, built byte by byte so the fuzzer controls the body.
enum WireMessage {
    static func methodCall(signature: [UInt8], body: [UInt8]) -> [UInt8] {
        var fields: [UInt8] = []
        func pad(_ bytes: inout [UInt8], _ alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
        func u32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        // Field offsets are relative to the message start; the array starts at 16 (8-aligned).
        func field(_ code: UInt8, _ type: Character, _ value: [UInt8]) {
            pad(&fields, 8)
            fields += [code, 1, UInt8(ascii: type.unicodeScalars.first!), 0]
            if type == "g" {
                fields += [UInt8(value.count)] + value + [0]
            } else {
                pad(&fields, 4)
                fields += u32(value.count) + value + [0]
            }
        }
        field(1, "o", Array("/org/courier/Broker".utf8))
        field(2, "s", Array("org.courier.Broker1".utf8))
        field(3, "s", Array("OpenURL".utf8))
        if !signature.isEmpty { field(8, "g", signature) }
        var message: [UInt8] = [UInt8(ascii: "l"), 1, 0, 1] + u32(body.count) + u32(1) + u32(fields.count) + fields
        pad(&message, 8)
        return message + body
    }
}
