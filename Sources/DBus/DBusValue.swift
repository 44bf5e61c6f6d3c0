/// One D-Bus value of any type: the dynamic representation used for message bodies, variants
/// and `a{sv}` option dictionaries.
///
/// Containers carry their element types, so an empty array still has a signature. Swift `Int` is
/// deliberately absent (ambiguous between `i` and `x`): pick `int32` or `int64`.
///
/// Only `variant` is `indirect` (the one case that holds a value directly): scalars and strings are
/// stored inline, not boxed on the heap, and containers are already behind their array's buffer.
/// Every message body is made of these, so a box per value was an allocation per argument.
///
/// A byte array (`ay`) has its own case, `bytes`, holding the bytes themselves: as an `array` of
/// `byte` values each byte would be a whole `DBusValue` (32 bytes) and one libdbus call, which made
/// a 4 MiB payload cost seconds. Received `ay` is always `bytes`; `.array(.byte, …)` is still
/// accepted when sending, and the two spellings of the same bytes are equal (`==`, `hash`).
public enum DBusValue: Sendable, Hashable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    case unixFD(UnixFD)
    /// A value wrapped in a variant (`v`): its type travels with it.
    indirect case variant(DBusValue)
    /// `aT`: every element must have type `T` (checked before sending).
    case array(DBusType, [DBusValue])
    /// `ay`, stored as bytes: encoded and decoded with one libdbus call and one copy.
    case bytes([UInt8])
    /// `a{KV}`: keys of basic type `K`, values of type `V`. Entry order is preserved.
    case dictionary(key: DBusType, value: DBusType, [DBusDictEntry])
    /// `(…)`: one or more fields.
    case structure([DBusValue])

    /// The value's complete type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .variant: .variant
        case .array(let t, _): .array(t)
        case .bytes: .array(.byte)
        case .dictionary(let k, let v, _): .dictionary(key: k, value: v)
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// Whether the value has type `t`: `type == t` without building the type of a basic value
    /// (checked for every value a handler returns).
    func hasType(_ t: DBusType) -> Bool {
        switch (self, t) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
            (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.string, .string),
            (.objectPath, .objectPath), (.signature, .signature), (.unixFD, .unixFD), (.variant, .variant):
            return true
        case (.bytes, .array(.byte)):
            return true
        case (.array, .array), (.dictionary, .dictionary), (.structure, .structure):
            return type == t
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .boolean(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .objectPath(let v): "objectpath '\(v)'"
        case .signature(let v): "signature '\(v)'"
        case .unixFD(let v): "\(v)"
        case .variant(let v): "<\(v)>"
        case .array(_, let vs): "[" + vs.map(\.description).joined(separator: ", ") + "]"
        case .bytes(let bs) where bs.count > 32: "[\(bs.count) bytes]"
        case .bytes(let bs): "[" + bs.map { "byte \($0)" }.joined(separator: ", ") + "]"
        case .dictionary(_, _, let es): "{" + es.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fs): "(" + fs.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Convenience constructors and accessors

extension DBusValue {
    /// An `as` array.
    public static func strings(_ values: [String]) -> DBusValue { .array(.string, values.map(DBusValue.string)) }

    /// An `a{sv}` dictionary (the usual options/vardict), sorted by key for determinism.
    public static func vardict(_ dict: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            dict.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .variant($0.value)) })
    }

    /// An `ah` array of file descriptors.
    public static func fds(_ values: [UnixFD]) -> DBusValue { .array(.unixFD, values.map(DBusValue.unixFD)) }

    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var stringValue: String? { if case .string(let v) = unwrapped { v } else { nil } }
    public var boolValue: Bool? { if case .boolean(let v) = unwrapped { v } else { nil } }
    public var uint32Value: UInt32? { if case .uint32(let v) = unwrapped { v } else { nil } }
    public var int32Value: Int32? { if case .int32(let v) = unwrapped { v } else { nil } }
    public var int64Value: Int64? { if case .int64(let v) = unwrapped { v } else { nil } }
    public var uint64Value: UInt64? { if case .uint64(let v) = unwrapped { v } else { nil } }
    public var doubleValue: Double? { if case .double(let v) = unwrapped { v } else { nil } }
    public var objectPathValue: ObjectPath? { if case .objectPath(let v) = unwrapped { v } else { nil } }
    public var unixFDValue: UnixFD? { if case .unixFD(let v) = unwrapped { v } else { nil } }

    /// The elements of an array (nil for anything else).
    public var arrayValue: [DBusValue]? {
        switch unwrapped {
        case .array(_, let v): v
        case .bytes(let b): b.map(DBusValue.byte)
        default: nil
        }
    }

    /// `as` → `[String]` (nil if not an array of strings).
    public var stringArrayValue: [String]? {
        guard case .array(.string, let vs) = unwrapped else { return nil }
        return vs.compactMap(\.stringValue)
    }

    /// `ay` → `[UInt8]` (nil if not an array of bytes).
    public var bytesValue: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): b
        case .array(.byte, let vs): vs.compactMap { if case .byte(let b) = $0 { b } else { nil } }
        default: nil
        }
    }

    /// `a{sv}` → `[String: DBusValue]` with the variant wrappers removed (nil if not an `a{s…}`).
    /// For duplicate keys the last entry wins.
    public var vardictValue: [String: DBusValue]? {
        guard case .dictionary(.string, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for e in entries {
            if let k = e.key.stringValue { out[k] = e.value.unwrapped }
        }
        return out
    }

    /// The fields of a structure (nil for anything else).
    public var structValue: [DBusValue]? { if case .structure(let v) = unwrapped { v } else { nil } }
}

// MARK: - Equality

extension DBusValue {
    /// Structural equality, with `.bytes(b)` equal to `.array(.byte, …)` of the same bytes (what a
    /// sender wrote either way is what the receiver decodes as `bytes`).
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.uint16(let a), .uint16(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.uint32(let a), .uint32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.uint64(let a), .uint64(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.objectPath(let a), .objectPath(let b)): a == b
        case (.signature(let a), .signature(let b)): a == b
        case (.unixFD(let a), .unixFD(let b)): a == b
        case (.variant(let a), .variant(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.bytes(let a), .array(.byte, let b)), (.array(.byte, let b), .bytes(let a)):
            a.elementsEqual(b) { .byte($0) == $1 }
        case (.array(let s, let a), .array(let t, let b)): s == t && a == b
        case (.dictionary(let k, let v, let a), .dictionary(let l, let w, let b)): k == l && v == w && a == b
        case (.structure(let a), .structure(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .byte(let v): hasher.combine(0); hasher.combine(v)
        case .boolean(let v): hasher.combine(1); hasher.combine(v)
        case .int16(let v): hasher.combine(2); hasher.combine(v)
        case .uint16(let v): hasher.combine(3); hasher.combine(v)
        case .int32(let v): hasher.combine(4); hasher.combine(v)
        case .uint32(let v): hasher.combine(5); hasher.combine(v)
        case .int64(let v): hasher.combine(6); hasher.combine(v)
        case .uint64(let v): hasher.combine(7); hasher.combine(v)
        case .double(let v): hasher.combine(8); hasher.combine(v)
        case .string(let v): hasher.combine(9); hasher.combine(v)
        case .objectPath(let v): hasher.combine(10); hasher.combine(v)
        case .signature(let v): hasher.combine(11); hasher.combine(v)
        case .unixFD(let v): hasher.combine(12); hasher.combine(v)
        case .variant(let v): hasher.combine(13); hasher.combine(v)
        case .bytes(let b): Self.hashBytes(b, into: &hasher)
        case .array(.byte, let vs):
            // Hashes like the `bytes` it equals, when every element is a byte.
            if let b = bytesValue, b.count == vs.count { Self.hashBytes(b, into: &hasher) } else { hasher.combine(14); hasher.combine(vs) }
        case .array(let t, let vs): hasher.combine(14); hasher.combine(t); hasher.combine(vs)
        case .dictionary(let k, let v, let es): hasher.combine(15); hasher.combine(k); hasher.combine(v); hasher.combine(es)
        case .structure(let fs): hasher.combine(16); hasher.combine(fs)
        }
    }

    private static func hashBytes(_ bytes: [UInt8], into hasher: inout Hasher) {
        hasher.combine(17)
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
