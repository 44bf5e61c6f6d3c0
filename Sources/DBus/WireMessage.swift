internal import CDBus

/// A whole D-Bus message written in the wire format by Swift and handed to libdbus in one piece
/// (`dbus_message_demarshal`): how the binding builds messages of three or more top-level arguments.
///
/// Why: libdbus's append iterator rewrites the header's `SIGNATURE` field after every top-level
/// argument (`_dbus_header_set_field_basic` re-marshals the header fields and drops their cache).
/// Built through the iterator, the broker's `ssva{sv}` delivery cost 112 k instructions, 82 k of
/// them those rewrites (callgrind, docs/dbus-binding.md "Building messages"). Here the signature is known
/// before the first byte, the bytes cost a few thousand instructions, and libdbus's demarshal —
/// which validates header and body exactly as it does every message it receives — about 45 k
/// whatever the shape. One- and two-argument bodies stay on the iterator, which is cheaper for them.
///
/// The contract: for the same header and values, the message libdbus demarshals has the same
/// header fields, flags and body bytes as the one its iterator builds (`WireMessageTests` checks it
/// byte for byte on generated values). Values holding a unix fd are not written here (the fds travel
/// beside the bytes, which demarshal cannot take): `make` returns nil and the caller uses the iterator.
struct WireMessage {
    /// What the header says. Fields left nil are not written.
    struct Header {
        /// `DBUS_MESSAGE_TYPE_*`: 1 method call, 2 method return, 4 signal.
        var type: Int32
        var path: ObjectPath?
        var interface: InterfaceName?
        var member: MemberName?
        var replySerial: UInt32?
        var destination: BusName?

        /// The header of the method return to `call`.
        static func methodReturn(to call: DBusMessage) -> Header {
            Header(type: cdbus_message_type_method_return(), replySerial: call.serial, destination: call.sender)
        }

        /// The flags libdbus gives a new message of this type: returns, errors and signals expect
        /// no reply (`dbus_message_new_method_return`, `_new_signal`); calls expect one and allow
        /// auto-start.
        var flags: UInt8 { type == cdbus_message_type_method_call() ? 0 : 1 }
    }

    /// The body may hold at most this many bytes (`DBusValue.byteCount`) to be written here; larger
    /// bodies (a 4 MiB annotation) take the iterator, whose fixed-array append copies them once
    /// where this path would copy them three times (into the bytes, the loader, the message).
    static let maxBodyBytes = 64 * 1024

    /// Bodies of fewer top-level arguments are cheaper through the iterator (one signature
    /// rewrite at most, against demarshal's fixed cost of validating a whole message).
    static let minArguments = 3

    /// The message for `header` and `body` (serial 1, which the sender overwrites with
    /// `dbus_message_set_serial`; libdbus's loader refuses 0), owned by the caller; nil when the
    /// iterator should build it instead: fewer than `minArguments`, more than `maxBodyBytes`, a
    /// unix fd, or libdbus out of memory. `body` has passed `MessageCodec.validate`.
    static func make(_ header: Header, body: [DBusValue]) -> OpaquePointer? {
        guard body.count >= minArguments, body.reduce(0, { $0 + $1.byteCount }) <= maxBodyBytes else { return nil }
        return demarshal(header, body: body)
    }

    /// `make` without the choice of path (the tests compare both paths on any body).
    static func demarshal(_ header: Header, body: [DBusValue]) -> OpaquePointer? {
        var w = WireWriter()
        guard w.message(header, body: body) else { return nil }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let m = w.bytes.withUnsafeBytes { raw in
            dbus_message_demarshal(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), &error)
        }
        dbus_error_free(&error)
        return m
    }
}

/// The little-endian wire format (D-Bus specification, "Marshaling"): every value aligned to its
/// type's boundary, counted from the start of the message. The header ends on an 8-byte boundary,
/// so the body's alignment is the same counted from either start.
struct WireWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    /// The header, then the body; false when the body holds a unix fd.
    mutating func message(_ header: WireMessage.Header, body: [DBusValue]) -> Bool {
        var bodySignature: [UInt8] = []
        for v in body { Self.appendSignature(of: v.type, to: &bodySignature) }
        bytes.append(UInt8(ascii: "l"))
        bytes.append(UInt8(truncatingIfNeeded: header.type))
        bytes.append(header.flags)
        bytes.append(1)                       // protocol version
        uint32(0)                             // body length, set below
        uint32(1)                             // serial (see `WireMessage.make`)
        let fields = beginArray(elementAlignment: 8)
        if let p = header.path { field(1, .objectPath, p.rawValue) }
        if let i = header.interface { field(2, .string, i.rawValue) }
        if let m = header.member { field(3, .string, m.rawValue) }
        if let r = header.replySerial {
            pad(8)
            bytes.append(5)
            signature(of: .uint32)
            uint32(r)
        }
        if let d = header.destination { field(6, .string, d.rawValue) }
        if !bodySignature.isEmpty {
            pad(8)
            bytes.append(8)
            signature(of: .signature)
            signatureBytes(bodySignature)
        }
        endArray(fields)
        pad(8)
        let bodyStart = bytes.count
        for v in body where !value(v) { return false }
        set(UInt32(bytes.count - bodyStart), at: 4)
        return true
    }

    // MARK: Values

    /// Appends `v`; false for a unix fd (see `WireMessage`).
    mutating func value(_ v: DBusValue) -> Bool {
        switch v {
        case .byte(let x): bytes.append(x)
        case .boolean(let x): uint32(x ? 1 : 0)
        case .int16(let x): uint16(UInt16(bitPattern: x))
        case .uint16(let x): uint16(x)
        case .int32(let x): uint32(UInt32(bitPattern: x))
        case .uint32(let x): uint32(x)
        case .int64(let x): uint64(UInt64(bitPattern: x))
        case .uint64(let x): uint64(x)
        case .double(let x): uint64(x.bitPattern)
        case .string(let s): string(s)
        case .objectPath(let p): string(p.rawValue)
        case .signature(let g): signatureBytes(g.rawValue.utf8)
        case .unixFD: return false
        case .variant(let inner):
            signature(of: inner.type)
            return value(inner)
        case .bytes(let b):
            uint32(UInt32(b.count))
            bytes.append(contentsOf: b)
        case .array(let et, let elements):
            let a = beginArray(elementAlignment: Self.alignment(of: et))
            for e in elements where !value(e) { return false }
            endArray(a)
        case .dictionary(_, _, let entries):
            let a = beginArray(elementAlignment: 8)
            for e in entries {
                pad(8)
                guard value(e.key), value(e.value) else { return false }
            }
            endArray(a)
        case .structure(let fields):
            pad(8)
            for f in fields where !value(f) { return false }
        }
        return true
    }

    /// Where an array's length goes and where its elements start.
    struct OpenArray {
        let lengthAt: Int
        let start: Int
    }

    /// The length (patched by `endArray`) and the padding to the first element, which the length
    /// does not count, even when the array is empty.
    mutating func beginArray(elementAlignment: Int) -> OpenArray {
        pad(4)
        let lengthAt = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0])
        pad(elementAlignment)
        return OpenArray(lengthAt: lengthAt, start: bytes.count)
    }

    mutating func endArray(_ a: OpenArray) {
        set(UInt32(bytes.count - a.start), at: a.lengthAt)
    }

    // MARK: Scalars

    mutating func pad(_ alignment: Int) {
        let over = bytes.count % alignment
        if over != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - over)) }
    }

    mutating func uint16(_ x: UInt16) {
        pad(2)
        bytes.append(UInt8(truncatingIfNeeded: x))
        bytes.append(UInt8(truncatingIfNeeded: x >> 8))
    }

    mutating func uint32(_ x: UInt32) {
        pad(4)
        withUnsafeBytes(of: x.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ x: UInt64) {
        pad(8)
        withUnsafeBytes(of: x.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func set(_ x: UInt32, at offset: Int) {
        withUnsafeBytes(of: x.littleEndian) { le in
            for i in 0..<4 { bytes[offset + i] = le[i] }
        }
    }

    /// `s` and `o`: length, the UTF-8 bytes, a NUL.
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            uint32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// `g`: a one-byte length, the characters, a NUL.
    mutating func signatureBytes(_ s: some Collection<UInt8>) {
        bytes.append(UInt8(s.count))
        bytes.append(contentsOf: s)
        bytes.append(0)
    }

    /// `g` holding the signature of `t`, written in place (a variant's, a header field's).
    mutating func signature(of t: DBusType) {
        let lengthAt = bytes.count
        bytes.append(0)
        Self.appendSignature(of: t, to: &bytes)
        bytes[lengthAt] = UInt8(bytes.count - lengthAt - 1)
        bytes.append(0)
    }

    /// One header field: `(y v)` with a string-like value of type `type` (`s` or `o`).
    mutating func field(_ code: UInt8, _ type: DBusType, _ text: String) {
        pad(8)
        bytes.append(code)
        signature(of: type)
        string(text)
    }

    // MARK: Types

    /// The alignment of a value of type `t` on the wire.
    static func alignment(of t: DBusType) -> Int {
        switch t {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .unixFD, .string, .objectPath, .array, .dictionary: 4
        case .int64, .uint64, .double, .structure: 8
        }
    }

    /// `t`'s signature characters, without building a `String`.
    static func appendSignature(of t: DBusType, to out: inout [UInt8]) {
        switch t {
        case .array(let e):
            out.append(UInt8(ascii: "a"))
            appendSignature(of: e, to: &out)
        case .dictionary(let k, let v):
            out.append(contentsOf: [UInt8(ascii: "a"), UInt8(ascii: "{")])
            appendSignature(of: k, to: &out)
            appendSignature(of: v, to: &out)
            out.append(UInt8(ascii: "}"))
        case .structure(let fields):
            out.append(UInt8(ascii: "("))
            for f in fields { appendSignature(of: f, to: &out) }
            out.append(UInt8(ascii: ")"))
        default:
            out.append(UInt8(truncatingIfNeeded: t.code))
        }
    }
}
