/// One D-Bus value of any type: the dynamic representation used for message bodies, variants
/// and `a{sv}` option dictionaries.
///
/// Containers carry their element types, so an empty array still has a signature. Swift `Int` is
/// deliberately absent (ambiguous between `i` and `x`): pick `int32` or `int64`.
///
/// Only `variant` is `indirect` (the one case that holds a value directly): scalars and strings are
/// stored inline, not boxed on the heap, and containers are already behind their array's buffer.
/// Every message body is made of these, so a box per value was an allocation per argument.
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

    /// An `ay` byte array.
    public static func bytes(_ values: [UInt8]) -> DBusValue { .array(.byte, values.map(DBusValue.byte)) }

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
    public var arrayValue: [DBusValue]? { if case .array(_, let v) = unwrapped { v } else { nil } }

    /// `as` → `[String]` (nil if not an array of strings).
    public var stringArrayValue: [String]? {
        guard case .array(.string, let vs) = unwrapped else { return nil }
        return vs.compactMap(\.stringValue)
    }

    /// `ay` → `[UInt8]` (nil if not an array of bytes).
    public var bytesValue: [UInt8]? {
        guard case .array(.byte, let vs) = unwrapped else { return nil }
        return vs.compactMap { if case .byte(let b) = $0 { b } else { nil } }
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
