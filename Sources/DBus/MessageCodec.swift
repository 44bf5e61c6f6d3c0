import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Translation between `DBusValue` and libdbus message iterators. Every check that libdbus would
/// answer with an abort happens in `validate` first.
enum MessageCodec {
    static let maxArrayDepth = 32
    static let maxStructDepth = 32
    static let maxTotalDepth = 64
    /// The most bytes one array may hold on the wire (64 MiB): libdbus aborts on a longer one.
    static let maxArrayBytes = Int(cdbus_maximum_array_length())

    // MARK: Validation

    /// Checks `values` so that appending them cannot trip a libdbus assertion: element types match,
    /// dictionary keys are basic, strings carry no NUL, nesting and signature lengths are in bounds.
    static func validate(_ values: [DBusValue]) throws(DBusValidationError) {
        try validateContents(values)
        // A body of at most 255 basic values always has a valid signature; check anything else fully,
        // once per distinct list of types (a service sends the same few bodies over and over).
        if values.count > 255 || values.contains(where: { !$0.type.isBasic }) {
            let types = values.map(\.type)
            if validBodyTypes.withLock({ $0.contains(types) }) { return }
            _ = try Signature(types)
            validBodyTypes.withLock { known in
                if known.count >= 256 { known.removeAll(keepingCapacity: true) }
                known.insert(types)
            }
        }
    }

    /// Lists of body types whose signature passed libdbus's validation.
    private static let validBodyTypes = Mutex<Set<[DBusType]>>([])

    /// The per-value checks of `validate`, for values whose signature is known to be valid.
    static func validateContents(_ values: [DBusValue]) throws(DBusValidationError) {
        for v in values { _ = try validate(v, arrays: 0, structs: 0, total: 0) }
    }

    /// Checks `v` and returns an upper bound of its size on the wire (alignment padding counted at
    /// its most), so that no array — a dictionary's included — goes out holding more than D-Bus's
    /// 64 MiB: the bus would take such a message for a corrupt one and drop the sender's connection.
    private static func validate(_ v: DBusValue, arrays: Int, structs: Int, total: Int) throws(DBusValidationError) -> Int {
        if arrays > maxArrayDepth || structs > maxStructDepth || total > maxTotalDepth {
            throw DBusValidationError(kind: "value", input: v.type.signature, reason: "nests containers deeper than D-Bus allows")
        }
        switch v {
        case .byte: return 1
        case .int16, .uint16: return 2
        case .boolean, .int32, .uint32: return 4
        case .int64, .uint64, .double: return 8
        case .string(let s):
            try NameValidation.string(s)
            return s.utf8.count + 8   // length, NUL, padding
        case .objectPath(let p): return p.rawValue.utf8.count + 8
        case .signature(let g): return g.rawValue.utf8.count + 2
        case .unixFD(let fd):
            if fd.rawValue == nil {
                throw DBusValidationError(kind: "unix fd", input: "\(fd)", reason: "was already taken or closed")
            }
            return 4
        case .variant(let inner):
            let t = inner.type
            if t.signature.utf8.count > 255 {
                throw DBusValidationError(kind: "variant", input: t.signature, reason: "contents signature longer than 255 bytes")
            }
            return try validate(inner, arrays: 0, structs: 0, total: total + 1) + t.signature.utf8.count + 9
        case .bytes(let bytes):
            try validateArrayLength(bytes.count, of: .byte)
            return bytes.count + 8
        case .array(let et, let elements):
            if case .dictionary = et {} else if et.signature.utf8.count > 254 {
                throw DBusValidationError(kind: "array", input: et.signature, reason: "element signature too long")
            }
            var content = 0
            for e in elements {
                if e.type != et {
                    throw DBusValidationError(
                        kind: "array", input: "a" + et.signature,
                        reason: "element of type '\(e.type.signature)' in an array of '\(et.signature)'")
                }
                content += try validate(e, arrays: arrays + 1, structs: structs, total: total + 1)
            }
            try validateArrayLength(content, of: et)
            return content + 8
        case .dictionary(let kt, let vt, let entries):
            if !kt.isBasic {
                throw DBusValidationError(kind: "dictionary", input: "a{\(kt.signature)\(vt.signature)}", reason: "keys must be a basic type")
            }
            var content = 0
            for e in entries {
                if e.key.type != kt || e.value.type != vt {
                    throw DBusValidationError(
                        kind: "dictionary", input: "a{\(kt.signature)\(vt.signature)}",
                        reason: "entry of type {\(e.key.type.signature)\(e.value.type.signature)}")
                }
                content += try validate(e.key, arrays: arrays + 1, structs: structs + 1, total: total + 2) + 7
                content += try validate(e.value, arrays: arrays + 1, structs: structs + 1, total: total + 2)
            }
            try validateArrayLength(content, of: .dictionary(key: kt, value: vt))
            return content + 8
        case .structure(let fields):
            if fields.isEmpty {
                throw DBusValidationError(kind: "structure", input: "()", reason: "a structure needs at least one field")
            }
            var size = 7
            for f in fields { size += try validate(f, arrays: arrays, structs: structs + 1, total: total + 1) }
            return size
        }
    }

    /// An array's contents (`bytes`: exactly; others: at most) against D-Bus's 64 MiB per array.
    private static func validateArrayLength(_ bytes: Int, of element: DBusType) throws(DBusValidationError) {
        if bytes > maxArrayBytes {
            throw DBusValidationError(
                kind: "array", input: "a" + element.signature,
                reason: "holds \(bytes) bytes; a D-Bus array holds at most \(maxArrayBytes) (64 MiB): send large data as a file descriptor")
        }
    }

    // MARK: Encoding

    /// Appends already-validated values; returns false if libdbus ran out of memory (the caller
    /// discards the message).
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for v in values where !append(v, &iter) { return false }
        return true
    }

    private static func appendBasic(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Int32, _ fill: (inout DBusBasicValue) -> Void) -> Bool {
        var b = cdbus_basic_zero()
        fill(&b)
        return dbus_message_iter_append_basic(iter, code, &b) != 0
    }

    private static func appendString(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Int32, _ s: String) -> Bool {
        s.withCString { cs in
            var p: UnsafePointer<CChar>? = cs
            return dbus_message_iter_append_basic(iter, code, &p) != 0
        }
    }

    private static func container(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Character, _ sig: String?,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let sig {
            opened = sig.withCString { dbus_message_iter_open_container(iter, Int32(code.asciiValue!), $0, &sub) } != 0
        } else {
            opened = dbus_message_iter_open_container(iter, Int32(code.asciiValue!), nil, &sub) != 0
        }
        guard opened else { return false }
        if !body(&sub) {
            dbus_message_iter_abandon_container(iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(iter, &sub) != 0
    }

    private static func append(_ v: DBusValue, _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        switch v {
        case .byte(let x): return appendBasic(iter, v.type.code) { $0.byt = x }
        case .boolean(let x): return appendBasic(iter, v.type.code) { $0.bool_val = x ? 1 : 0 }
        case .int16(let x): return appendBasic(iter, v.type.code) { $0.i16 = x }
        case .uint16(let x): return appendBasic(iter, v.type.code) { $0.u16 = x }
        case .int32(let x): return appendBasic(iter, v.type.code) { $0.i32 = x }
        case .uint32(let x): return appendBasic(iter, v.type.code) { $0.u32 = x }
        case .int64(let x): return appendBasic(iter, v.type.code) { $0.i64 = dbus_int64_t(x) }
        case .uint64(let x): return appendBasic(iter, v.type.code) { $0.u64 = dbus_uint64_t(x) }
        case .double(let x): return appendBasic(iter, v.type.code) { $0.dbl = x }
        case .string(let s): return appendString(iter, v.type.code, s)
        case .objectPath(let p): return appendString(iter, v.type.code, p.rawValue)
        case .signature(let g): return appendString(iter, v.type.code, g.rawValue)
        case .unixFD(let fd):
            guard let raw = fd.rawValue else { return false }
            // libdbus duplicates the descriptor; `fd` keeps ownership of the original.
            let ok = appendBasic(iter, v.type.code) { $0.fd = raw }
            withExtendedLifetime(fd) {}
            return ok
        case .variant(let inner):
            return container(iter, "v", inner.type.signature) { append(inner, $0) }
        case .bytes(let bytes):
            return appendBytes(bytes, iter)
        case .array(.byte, let elements):
            return appendBytes(elements.map { if case .byte(let b) = $0 { b } else { 0 } }, iter)
        case .array(let et, let elements):
            return container(iter, "a", et.signature) { sub in
                for e in elements where !append(e, sub) { return false }
                return true
            }
        case .dictionary(let kt, let vt, let entries):
            return container(iter, "a", "{" + kt.signature + vt.signature + "}") { sub in
                for e in entries {
                    let ok = container(sub, "e", nil) { entry in append(e.key, entry) && append(e.value, entry) }
                    if !ok { return false }
                }
                return true
            }
        case .structure(let fields):
            return container(iter, "r", nil) { sub in
                for f in fields where !append(f, sub) { return false }
                return true
            }
        }
    }

    /// `ay` with one `dbus_message_iter_append_fixed_array`: one copy into the message, not one
    /// libdbus call per byte. (`validate` has checked the length against `maxArrayBytes`.)
    private static func appendBytes(_ bytes: [UInt8], _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        container(iter, "a", "y") { sub in
            guard !bytes.isEmpty else { return true }
            return bytes.withUnsafeBufferPointer { buffer in
                var start: UnsafePointer<UInt8>? = buffer.baseAddress
                return dbus_message_iter_append_fixed_array(sub, Int32(UInt8(ascii: "y")), &start, Int32(buffer.count)) != 0
            }
        }
    }

    // MARK: Decoding

    /// Decodes the whole body of a message libdbus has validated on receipt.
    static func decodeBody(_ message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var out: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != cdbus_type_invalid() {
            if let v = read(&iter) { out.append(v) }
            _ = dbus_message_iter_next(&iter)
        }
        return out
    }

    private static func basic(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusBasicValue {
        var b = cdbus_basic_zero()
        dbus_message_iter_get_basic(iter, &b)
        return b
    }

    /// The type of the array at `iter`. Arrays of a basic type or of variants, and `a{sv}` (the
    /// usual options dictionary), are recognised without building and parsing a signature string.
    private static func currentType(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusType? {
        let element = dbus_message_iter_get_element_type(iter)
        if element > 0, element < 128, let single = DBusType(code: UInt8(element)) { return .array(single) }
        guard let cs = dbus_message_iter_get_signature(iter) else { return nil }
        defer { dbus_free(cs) }
        if strcmp(cs, "a{sv}") == 0 { return .dictionary(key: .string, value: .variant) }
        let chars = Array(String(cString: cs).utf8)
        var i = 0
        return DBusType.parse(chars, &i)
    }

    private static func read(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue? {
        let t = dbus_message_iter_get_arg_type(iter)
        guard t >= 0, t < 128 else { return nil }
        switch UInt8(t) {
        case UInt8(ascii: "y"): return .byte(basic(iter).byt)
        case UInt8(ascii: "b"): return .boolean(basic(iter).bool_val != 0)
        case UInt8(ascii: "n"): return .int16(basic(iter).i16)
        case UInt8(ascii: "q"): return .uint16(basic(iter).u16)
        case UInt8(ascii: "i"): return .int32(basic(iter).i32)
        case UInt8(ascii: "u"): return .uint32(basic(iter).u32)
        case UInt8(ascii: "x"): return .int64(Int64(basic(iter).i64))
        case UInt8(ascii: "t"): return .uint64(UInt64(basic(iter).u64))
        case UInt8(ascii: "d"): return .double(basic(iter).dbl)
        case UInt8(ascii: "s"):
            // Borrowed from the message: copy at once.
            return .string(basic(iter).str.map { String(cString: $0) } ?? "")
        case UInt8(ascii: "o"):
            return .objectPath(ObjectPath(unchecked: basic(iter).str.map { String(cString: $0) } ?? "/"))
        case UInt8(ascii: "g"):
            let s = basic(iter).str.map { String(cString: $0) } ?? ""
            return .signature((try? Signature(s)) ?? .empty)
        case UInt8(ascii: "h"):
            // libdbus hands us a duplicate we now own.
            let fd = basic(iter).fd
            return .unixFD(UnixFD(taking: fd))
        case UInt8(ascii: "v"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            guard let inner = read(&sub) else { return nil }
            return .variant(inner)
        case UInt8(ascii: "r"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != cdbus_type_invalid() {
                if let f = read(&sub) { fields.append(f) }
                _ = dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case UInt8(ascii: "a"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            if dbus_message_iter_get_element_type(iter) == Int32(UInt8(ascii: "y")) {
                // One copy out of the message (`readBytes`), not a libdbus call per byte.
                return .bytes(readBytes(&sub))
            }
            guard let type = currentType(iter) else { return nil }
            switch type {
            case .dictionary(let kt, let vt):
                var entries: [DBusDictEntry] = []
                while dbus_message_iter_get_arg_type(&sub) != cdbus_type_invalid() {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &entry)
                    let k = read(&entry)
                    _ = dbus_message_iter_next(&entry)
                    let v = read(&entry)
                    if let k, let v { entries.append(DBusDictEntry(k, v)) }
                    _ = dbus_message_iter_next(&sub)
                }
                return .dictionary(key: kt, value: vt, entries)
            case .array(let et):
                var elements: [DBusValue] = []
                while dbus_message_iter_get_arg_type(&sub) != cdbus_type_invalid() {
                    if let e = read(&sub) { elements.append(e) }
                    _ = dbus_message_iter_next(&sub)
                }
                return .array(et, elements)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The bytes of the `ay` whose contents `sub` iterates, borrowed from the message and copied once.
    private static func readBytes(_ sub: UnsafeMutablePointer<DBusMessageIter>) -> [UInt8] {
        var start: UnsafeRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(sub, &start, &count)
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: Int(count)))
    }

    /// Decodes header and body of a received message.
    static func decode(_ m: OpaquePointer, withBody: Bool = true) -> DBusMessage {
        let kind = kind(of: m)
        var header = HeaderStringCache()
        var none = HeaderStringCache()
        header.fill(from: m, kind: kind, reusing: &none)
        return decode(m, kind: kind, header: header, withBody: withBody)
    }

    /// `decode`, reusing header strings equal to those of the previous message decoded with
    /// `cache` (the connection's, used on its I/O thread) instead of allocating new ones.
    static func decode(_ m: OpaquePointer, reusing cache: borrowing Mutex<HeaderStringCache>) -> DBusMessage {
        let kind = kind(of: m)
        var header = HeaderStringCache()
        cache.withLock { header.fill(from: m, kind: kind, reusing: &$0) }
        return decode(m, kind: kind, header: header, withBody: true)
    }

    static func kind(of m: OpaquePointer) -> DBusMessage.Kind {
        switch dbus_message_get_type(m) {
        case cdbus_message_type_method_call(): .methodCall
        case cdbus_message_type_method_return(): .methodReturn
        case cdbus_message_type_error(): .error
        default: .signal
        }
    }

    /// Reads only the header fields a message of `kind` can carry (each read is a libdbus
    /// header lookup): no reply serial on calls and signals, no error name but on errors.
    private static func decode(_ m: OpaquePointer, kind: DBusMessage.Kind, header: HeaderStringCache, withBody: Bool) -> DBusMessage {
        let isReply = kind == .methodReturn || kind == .error
        return DBusMessage(
            kind: kind,
            serial: dbus_message_get_serial(m),
            replySerial: isReply ? dbus_message_get_reply_serial(m) : 0,
            sender: header.sender.map(BusName.init(unchecked:)),
            destination: header.destination.map(BusName.init(unchecked:)),
            path: header.path.map(ObjectPath.init(unchecked:)),
            interface: header.interface.map(InterfaceName.init(unchecked:)),
            member: header.member.map(MemberName.init(unchecked:)),
            errorName: kind == .error ? dbus_message_get_error_name(m).map { String(cString: $0) } : nil,
            signature: header.signature?.parsed ?? .empty,
            body: withBody ? decodeBody(m) : [],
            noReplyExpected: kind == .methodCall && dbus_message_get_no_reply(m) != 0)
    }
}

/// The header strings of one message; as a connection's cache, those of the last message
/// decoded. Consecutive messages mostly repeat sender, path, interface, member and signature, and
/// comparing a few bytes costs less than allocating a `String` (and, for the signature, parsing it).
struct HeaderStringCache: Sendable {
    var sender: String?
    var destination: String?
    var path: String?
    var interface: String?
    var member: String?
    var signature: (text: String, parsed: Signature)?

    /// Reads the fields of `m` (path, interface and member only for calls and signals, which
    /// carry them), taking the string from `cache` when it is equal, and leaves in `cache` the
    /// strings of `m`.
    mutating func fill(from m: OpaquePointer, kind: DBusMessage.Kind, reusing cache: inout HeaderStringCache) {
        sender = Self.string(dbus_message_get_sender(m), &cache.sender)
        destination = Self.string(dbus_message_get_destination(m), &cache.destination)
        if kind == .methodCall || kind == .signal {
            path = Self.string(dbus_message_get_path(m), &cache.path)
            interface = Self.string(dbus_message_get_interface(m), &cache.interface)
            member = Self.string(dbus_message_get_member(m), &cache.member)
        }
        if let text = dbus_message_get_signature(m), text.pointee != 0 {
            if let last = cache.signature, Self.equal(last.text, text) {
                signature = last
            } else {
                let entry = (String(cString: text), SignatureCache.signature(text))
                cache.signature = entry
                signature = entry
            }
        } else {
            signature = nil
        }
    }

    private static func string(_ p: UnsafePointer<CChar>?, _ slot: inout String?) -> String? {
        guard let p else { return nil }
        if let last = slot, equal(last, p) { return last }
        let s = String(cString: p)
        slot = s
        return s
    }

    /// Whether `s` spells exactly the NUL-terminated bytes at `p`.
    private static func equal(_ s: String, _ p: UnsafePointer<CChar>) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            let n = bytes.count
            return strnlen(p, n + 1) == n && (n == 0 || memcmp(bytes.baseAddress!, p, n) == 0)
        }
    }
}

/// Signatures of received messages (validated by libdbus on receipt), parsed once per distinct text.
enum SignatureCache {
    private static let cache = Mutex<[String: Signature]>([:])

    static func signature(_ text: UnsafePointer<CChar>?) -> Signature {
        guard let text, text.pointee != 0 else { return .empty }
        let s = String(cString: text)
        if let hit = cache.withLock({ $0[s] }) { return hit }
        let parsed = (try? Signature(s)) ?? .empty
        cache.withLock { c in
            if c.count > 512 { c.removeAll() }
            c[s] = parsed
        }
        return parsed
    }
}
