/// A complete D-Bus type: what one signature element (`s`, `a{sv}`, `(ii)`, …) denotes.
///
/// Every value carries its type (see `DBusValue.type`), so empty arrays and dictionaries still
/// know their element signature, which the wire format requires.
public indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    /// `aT`: an array of `T` (not a dictionary; see `dictionary`).
    case array(DBusType)
    /// `a{KV}`: a dictionary; `K` must be a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(T…)`: a structure of one or more fields.
    case structure([DBusType])

    /// The type's signature text, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .array(let e): "a" + e.signature
        case .dictionary(let k, let v): "a{" + k.signature + v.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        default: Self.oneCharacterSignatures[Int(code)]
        }
    }

    public var description: String { signature }

    /// Basic (non-container) types: the only types allowed as dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// The libdbus type code of this type's first signature character: for the basic types and
    /// `variant`, their whole signature.
    var code: Int32 {
        switch self {
        case .byte: Int32(UInt8(ascii: "y"))
        case .boolean: Int32(UInt8(ascii: "b"))
        case .int16: Int32(UInt8(ascii: "n"))
        case .uint16: Int32(UInt8(ascii: "q"))
        case .int32: Int32(UInt8(ascii: "i"))
        case .uint32: Int32(UInt8(ascii: "u"))
        case .int64: Int32(UInt8(ascii: "x"))
        case .uint64: Int32(UInt8(ascii: "t"))
        case .double: Int32(UInt8(ascii: "d"))
        case .string: Int32(UInt8(ascii: "s"))
        case .objectPath: Int32(UInt8(ascii: "o"))
        case .signature: Int32(UInt8(ascii: "g"))
        case .unixFD: Int32(UInt8(ascii: "h"))
        case .variant: Int32(UInt8(ascii: "v"))
        case .array, .dictionary: Int32(UInt8(ascii: "a"))
        case .structure: Int32(UInt8(ascii: "r"))
        }
    }

    /// Parses one complete type from the front of `chars`, advancing `index`.
    /// The caller validated the whole signature with libdbus first, so malformed input is not expected;
    /// it still fails softly (returns nil) rather than trapping.
    static func parse(_ chars: [UInt8], _ index: inout Int) -> DBusType? {
        guard index < chars.count else { return nil }
        let c = chars[index]
        index += 1
        switch c {
        case UInt8(ascii: "a"):
            if index < chars.count, chars[index] == UInt8(ascii: "{") {
                index += 1
                guard let k = parse(chars, &index), let v = parse(chars, &index),
                    index < chars.count, chars[index] == UInt8(ascii: "}")
                else { return nil }
                index += 1
                return .dictionary(key: k, value: v)
            }
            guard let e = parse(chars, &index) else { return nil }
            return .array(e)
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while index < chars.count, chars[index] != UInt8(ascii: ")") {
                guard let f = parse(chars, &index) else { return nil }
                fields.append(f)
            }
            guard index < chars.count, !fields.isEmpty else { return nil }
            index += 1
            return .structure(fields)
        default:
            return DBusType(code: c)
        }
    }

    /// The type whose whole signature is the one character `code` (a basic type or `v`); nil for
    /// anything else.
    init?(code: UInt8) {
        guard code < 128, let type = Self.byCode[Int(code)] else { return nil }
        self = type
    }

    /// Every one-character signature, at the index of its code: `signature` is read for each
    /// variant and array a message carries, so a basic type's text is looked up, not built.
    private static let oneCharacterSignatures: [String] = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }

    /// The types written with one character, at the index of their code.
    private static let byCode: [DBusType?] = {
        var table = [DBusType?](repeating: nil, count: 128)
        for type in [DBusType.byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double,
                     .string, .objectPath, .signature, .unixFD, .variant] {
            table[Int(type.code)] = type
        }
        return table
    }()
}
