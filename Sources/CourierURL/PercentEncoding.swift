/// Percent-encoding (RFC 3986 §2.1): strict decoding to UTF-8 and encoding with a chosen set of
/// characters left as they are.
///
/// Decoding never substitutes U+FFFD: an invalid escape (`%zz`, `%4`) or decoded bytes that are
/// not UTF-8 are errors with the offset of the offending escape.
public enum PercentEncoding {
    /// Decodes `text`. Offsets in errors count from the start of `text` plus `baseOffset`.
    public static func decode(
        _ text: some StringProtocol, plusAsSpace: Bool = false,
        baseOffset: Int = 0, component: URIComponent? = nil
    ) throws(URIError) -> String {
        let needsWork = text.utf8.contains { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }
        if !needsWork { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var source = Array(text.utf8)[...]
        var offset = baseOffset
        while let byte = source.first {
            if byte == UInt8(ascii: "%") {
                let triplet = source.prefix(3)
                guard triplet.count == 3,
                    CharacterClass.table[Int(triplet[triplet.startIndex + 1])] & CharacterClass.hexDigit != 0,
                    CharacterClass.table[Int(triplet[triplet.startIndex + 2])] & CharacterClass.hexDigit != 0
                else {
                    throw URIError(
                        code: .invalidPercentEncoding, offset: offset, component: component,
                        message: "invalid percent escape '\(String(decoding: triplet, as: UTF8.self))' at offset \(offset)\(component.map { " in \($0.phrase)" } ?? ""): '%' must be followed by two hexadecimal digits",
                        advice: "write %25 for a literal '%'")
                }
                bytes.append(
                    CharacterClass.hexValue(triplet[triplet.startIndex + 1]) << 4
                        | CharacterClass.hexValue(triplet[triplet.startIndex + 2]))
                source = source.dropFirst(3)
                offset += 3
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                source = source.dropFirst()
                offset += 1
            }
        }
        if let bad = UTF8Validation.firstInvalidByte(in: bytes) {
            let at = sourceOffset(ofDecodedByte: bad, in: text) + baseOffset
            throw URIError(
                code: .invalidUTF8, offset: at, component: component,
                message: "the percent-decoded bytes at offset \(at)\(component.map { " in \($0.phrase)" } ?? "") are not valid UTF-8",
                advice: "percent-encode the text as UTF-8 (e.g. é as %C3%A9)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where the decoded byte at `index` came from in `text` (offset from the start of `text`).
    private static func sourceOffset(ofDecodedByte index: Int, in text: some StringProtocol) -> Int {
        var decoded = 0
        var offset = 0
        let utf8 = Array(text.utf8)
        while decoded < index, offset < utf8.count {
            offset += utf8[offset] == UInt8(ascii: "%") ? 3 : 1
            decoded += 1
        }
        return offset
    }

    /// Percent-encodes every byte of `text`'s UTF-8 that is not in `allowed` (`%` is always
    /// encoded). Hex digits are uppercase, as RFC 3986 §2.1 recommends.
    public static func encode(_ text: some StringProtocol, allowing allowed: AllowedCharacters) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 != UInt8(ascii: "%") && allowed.contains($0) }) { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in utf8 {
            if byte != UInt8(ascii: "%"), allowed.contains(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A set of ASCII bytes left unencoded by ``PercentEncoding/encode(_:allowing:)``.
    public struct AllowedCharacters: Sendable, Hashable {
        var low: UInt64
        var high: UInt64

        init(_ characters: String) {
            low = 0
            high = 0
            for byte in characters.utf8 { insert(byte) }
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        /// Whether `byte` is left as it is.
        public func contains(_ byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 ? high & (1 << UInt64(byte - 64)) != 0 : false
        }

        /// Removes characters from the set.
        public func subtracting(_ characters: String) -> AllowedCharacters {
            var copy = self
            for byte in characters.utf8 {
                if byte < 64 { copy.low &= ~(1 << UInt64(byte)) } else if byte < 128 { copy.high &= ~(1 << UInt64(byte - 64)) }
            }
            return copy
        }

        private static let alphaDigit = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        private static let subDelims = "!$&'()*+,;="

        /// `ALPHA / DIGIT / "-" / "." / "_" / "~"`: encode everything else.
        public static let unreserved = AllowedCharacters(alphaDigit + "-._~")
        /// `pchar` without `/`: one path segment.
        public static let pathSegment = AllowedCharacters(alphaDigit + "-._~" + subDelims + ":@")
        /// `pchar / "/"`: a path.
        public static let path = AllowedCharacters(alphaDigit + "-._~" + subDelims + ":@/")
        /// `pchar / "/" / "?"`: a whole query or fragment.
        public static let query = AllowedCharacters(alphaDigit + "-._~" + subDelims + ":@/?")
        /// The query without `&`, `=`, `+` and `;`: a key or value of a `key=value&…` query.
        public static let queryItem = query.subtracting("&=+;")
        /// The fragment characters (same as ``query``).
        public static let fragment = query
        /// `unreserved / sub-delims / ":"`.
        public static let userinfo = AllowedCharacters(alphaDigit + "-._~" + subDelims + ":")
        /// `unreserved / sub-delims`: a registered name.
        public static let host = AllowedCharacters(alphaDigit + "-._~" + subDelims)
    }
}

/// Strict UTF-8 validation (no overlongs, no surrogates, nothing above U+10FFFF) that says where
/// the first bad byte is.
enum UTF8Validation {
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upperBound = 0x9F
            case 0xF0: length = 4; lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upperBound = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let b1 = bytes[i + 1]
            if b1 < lowerBound || b1 > upperBound { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
