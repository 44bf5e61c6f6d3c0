extension URIReference {
    /// The syntax-based normal form of RFC 3986 §6.2.2: scheme and host lowercased, percent
    /// escapes with uppercase hex digits, escapes of unreserved characters decoded, and dot
    /// segments removed from the path of a URI (not from a relative reference, where a leading
    /// `..` still has a meaning).
    ///
    /// Two references that normalize to the same string identify the same resource.
    public func normalized() -> URIReference {
        let scheme = rawScheme.map { $0.lowercased()[...] }
        var authority: String? = nil
        if let host {
            let normalizedHost = Self.normalizePercentEncoding(host, lowercase: true)
            authority = Self.authority(
                userinfo: userinfo.map { Self.normalizePercentEncoding($0, lowercase: false)[...] },
                host: normalizedHost[...], port: rawPort)
        }
        var path = Self.normalizePercentEncoding(self.path, lowercase: false)
        if hasScheme || authority != nil {
            path = Self.removeDotSegments(path)
        }
        let text = Self.compose(
            scheme: scheme, authority: authority, path: path[...],
            query: query.map { Self.normalizePercentEncoding($0, lowercase: false)[...] },
            fragment: fragment.map { Self.normalizePercentEncoding($0, lowercase: false)[...] })
        // Decoding unreserved escapes and removing dot segments keeps the text valid.
        return (try? URIReference(text, options: URIParsingOptions(maximumLength: Int(Int32.max)))) ?? self
    }

    /// Uppercases escape digits, decodes escapes of unreserved characters, and lowercases letters
    /// when asked (for the host).
    static func normalizePercentEncoding(_ text: Substring, lowercase: Bool) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let digits = Array("0123456789ABCDEF".utf8)
        var i = 0
        while i < bytes.count {
            var byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count {
                let value = CharacterClass.hexValue(bytes[i + 1]) << 4 | CharacterClass.hexValue(bytes[i + 2])
                i += 3
                if CharacterClass.isUnreserved(value) {
                    out.append(lowercase && value >= 0x41 && value <= 0x5A ? value | 0x20 : value)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(digits[Int(value >> 4)])
                    out.append(digits[Int(value & 0xF)])
                }
                continue
            }
            if lowercase, byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
            out.append(byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 `remove_dot_segments`.
    public static func removeDotSegments(_ path: some StringProtocol) -> String {
        var input = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
        var i = 0
        let n = input.count
        func at(_ k: Int) -> UInt8? { i + k < n ? input[i + k] : nil }
        func removeLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while i < n {
            if at(0) == dot, at(1) == dot, at(2) == slash {
                i += 3  // A: "../"
            } else if at(0) == dot, at(1) == slash {
                i += 2  // A: "./"
            } else if at(0) == slash, at(1) == dot, at(2) == slash {
                i += 2  // B: "/./" -> "/"
            } else if at(0) == slash, at(1) == dot, i + 2 == n {
                i += 1  // B: "/." -> "/"
                input[i] = slash
            } else if at(0) == slash, at(1) == dot, at(2) == dot, at(3) == slash {
                i += 3  // C: "/../" -> "/"
                removeLastSegment()
            } else if at(0) == slash, at(1) == dot, at(2) == dot, i + 3 == n {
                i += 2  // C: "/.." -> "/"
                input[i] = slash
                removeLastSegment()
            } else if (at(0) == dot && i + 1 == n) || (at(0) == dot && at(1) == dot && i + 2 == n) {
                i = n  // D
            } else {
                // E: move the first segment (with its leading "/") to the output.
                var j = i
                if input[j] == slash { j += 1 }
                while j < n, input[j] != slash { j += 1 }
                output.append(contentsOf: input[i..<j])
                i = j
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
