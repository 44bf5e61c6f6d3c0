/// Why a string is not a valid URI reference, where, and what to do about it.
///
/// The parser never repairs its input: it stops at the first byte that breaks RFC 3986 and
/// reports it. ``offset`` counts UTF-8 bytes from the start of the input (0-based), so a tool can
/// point at the exact character. ``description`` reads like
/// `space at offset 17 is not allowed in a query; escape it as %20`.
public struct URIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem; an open set of values, compared by ``rawValue``.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A byte that the grammar does not allow where it stands (space, control, NUL, `"`, …).
        public static let disallowedCharacter = Code(rawValue: "disallowed-character")
        /// A byte ≥ 0x80: URIs are ASCII, anything else must be percent-encoded.
        public static let nonASCII = Code(rawValue: "non-ascii")
        /// `%` not followed by two hexadecimal digits.
        public static let invalidPercentEncoding = Code(rawValue: "invalid-percent-encoding")
        /// Percent-decoded bytes that are not UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalid-utf8")
        /// `:` at the start: a scheme with no name.
        public static let emptyScheme = Code(rawValue: "empty-scheme")
        /// A scheme name that breaks `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
        public static let invalidScheme = Code(rawValue: "invalid-scheme")
        /// A reference without a scheme where an absolute URI is required.
        public static let missingScheme = Code(rawValue: "missing-scheme")
        /// A port with a non-digit or above 65535.
        public static let invalidPort = Code(rawValue: "invalid-port")
        /// `[` without `]` or the reverse, or brackets outside the host.
        public static let unbalancedBracket = Code(rawValue: "unbalanced-bracket")
        /// A bracketed host that is neither an IPv6 address nor an IPvFuture literal.
        public static let invalidIPLiteral = Code(rawValue: "invalid-ip-literal")
        /// A relative reference whose first path segment holds a `:` (it would read as a scheme).
        public static let colonInFirstSegment = Code(rawValue: "colon-in-first-segment")
        /// The input is longer than the configured limit.
        public static let tooLong = Code(rawValue: "too-long")
    }

    /// What kind of problem this is.
    public let code: Code
    /// The UTF-8 byte offset of the offending character in the input (0-based).
    public let offset: Int
    /// The component the offending character belongs to, when there is one.
    public let component: URIComponent?
    /// What is wrong and where, e.g. `space at offset 17 is not allowed in a query`.
    public let message: String
    /// What to do, e.g. `escape it as %20`.
    public let advice: String

    public init(code: Code, offset: Int, component: URIComponent?, message: String, advice: String) {
        self.code = code
        self.offset = offset
        self.component = component
        self.message = message
        self.advice = advice
    }

    public var description: String { withAdvice(message, advice) }
}

/// `problem; advice`, or `problem` alone when there is no advice: how the URL errors read (the
/// parser's and the URL format's).
package func withAdvice(_ problem: String, _ advice: String) -> String {
    advice.isEmpty ? problem : "\(problem); \(advice)"
}

extension URIError {
    /// How a byte is named in a message: `space`, `NUL (0x00)`, `'"'`, `non-ASCII byte 0xC3`.
    static func name(of byte: UInt8) -> String {
        switch byte {
        case 0x20: return "space"
        case 0x00: return "NUL (0x00)"
        case 0x09: return "tab (0x09)"
        case 0x0A: return "line feed (0x0A)"
        case 0x0D: return "carriage return (0x0D)"
        case 0x01..<0x20, 0x7F: return "control character \(hex(byte))"
        case 0x80...: return "non-ASCII byte \(hex(byte))"
        default: return "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    /// `0x0A`.
    static func hex(_ byte: UInt8) -> String {
        "0x" + percentTriplet(byte).dropFirst()
    }

    /// `%0A`.
    static func percentTriplet(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
    }

    /// A byte the grammar refuses in `component`.
    static func disallowed(_ byte: UInt8, at offset: Int, in component: URIComponent) -> URIError {
        if byte >= 0x80 {
            return URIError(
                code: .nonASCII, offset: offset, component: component,
                message: "\(name(of: byte)) at offset \(offset) is not allowed in \(component.phrase)",
                advice: "percent-encode the UTF-8 bytes of the character (this one as \(percentTriplet(byte)))")
        }
        if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") {
            return URIError(
                code: .unbalancedBracket, offset: offset, component: component,
                message: "\(name(of: byte)) at offset \(offset) is not allowed in \(component.phrase); brackets only enclose an IP literal host",
                advice: "escape it as \(percentTriplet(byte))")
        }
        return URIError(
            code: .disallowedCharacter, offset: offset, component: component,
            message: "\(name(of: byte)) at offset \(offset) is not allowed in \(component.phrase)",
            advice: "escape it as \(percentTriplet(byte))")
    }

    /// A `%` at `offset` that is not followed by two hexadecimal digits.
    static func badEscape(at offset: Int, in component: URIComponent, text: Substring) -> URIError {
        URIError(
            code: .invalidPercentEncoding, offset: offset, component: component,
            message: "invalid percent escape '\(text)' at offset \(offset) in \(component.phrase): '%' must be followed by two hexadecimal digits",
            advice: "write %25 for a literal '%'")
    }
}
