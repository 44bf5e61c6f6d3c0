/// The RFC 3986 character classes (appendix A) as one 256-entry table of bit flags, so the
/// parser tests a byte against a whole production with one load and one mask.
///
/// Bytes ≥ 0x80 belong to no class: a URI is ASCII, and anything else must be percent-encoded.
/// `%` is a member of the classes that allow `pct-encoded`; its escapes are validated apart.
enum CharacterClass {
    /// `ALPHA / DIGIT / "+" / "-" / "."` (scheme characters after the first).
    static let scheme: UInt8 = 1 << 0
    /// `unreserved / sub-delims` (reg-name; userinfo adds `":"`).
    static let regName: UInt8 = 1 << 1
    /// `unreserved / sub-delims / ":"`.
    static let userinfo: UInt8 = 1 << 2
    /// `pchar = unreserved / sub-delims / ":" / "@"` (pct-encoded handled apart).
    static let pchar: UInt8 = 1 << 3
    /// `pchar / "/"`: the characters of a path.
    static let path: UInt8 = 1 << 4
    /// `pchar / "/" / "?"`: the characters of a query or a fragment.
    static let queryOrFragment: UInt8 = 1 << 5
    /// `HEXDIG`.
    static let hexDigit: UInt8 = 1 << 6

    /// The table as a literal (a computed property: no lazy initialization on the hot path), indexed by byte
    /// value. Generated from ``table``; a test checks that the two agree.
    static var staticTable: StaticString { "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{3E}\u{0}\u{0}\u{3E}\u{3E}\u{3E}\u{3E}\u{3E}\u{3E}\u{3E}\u{3F}\u{3E}\u{3F}\u{3F}\u{30}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{3C}\u{3E}\u{0}\u{3E}\u{0}\u{20}\u{38}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{0}\u{0}\u{0}\u{0}\u{3E}\u{0}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{3F}\u{0}\u{0}\u{0}\u{3E}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}" }

    /// The table computed from the grammar, indexed by byte value.
    static let table: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        func add(_ characters: String, _ flags: UInt8) {
            for byte in characters.utf8 { table[Int(byte)] |= flags }
        }
        let alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        let digit = "0123456789"
        let unreservedMarks = "-._~"
        let subDelims = "!$&'()*+,;="
        let all: UInt8 = regName | userinfo | pchar | path | queryOrFragment
        add(alpha + digit, all | scheme)
        add("+-.", scheme)
        add(unreservedMarks, all)
        add(subDelims, all)
        add(":", userinfo | pchar | path | queryOrFragment)
        add("@", pchar | path | queryOrFragment)
        add("/", path | queryOrFragment)
        add("?", queryOrFragment)
        add("0123456789ABCDEFabcdef", hexDigit)
        // `%` belongs to every class that allows pct-encoded; the parser checks the two hex
        // digits after each one in a separate, word-at-a-time pass.
        add("%", all)
        return table
    }()

    /// The value of a hexadecimal digit; only called on bytes in `hexDigit`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        default: return byte &- UInt8(ascii: "A") &+ 10
        }
    }

    /// Whether `byte` is `unreserved` (`ALPHA / DIGIT / "-" / "." / "_" / "~"`).
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// Whether `byte` is an ASCII letter.
    @inline(__always)
    static func isAlpha(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// Whether `byte` is an ASCII hexadecimal digit (arithmetic: no table, so no lazy global).
    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    /// Whether `byte` is an ASCII digit.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
