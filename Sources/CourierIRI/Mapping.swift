import CourierNames
import CourierURL
import Foundation

/// One pass of RFC 3987 section 3.1 over an IRI's UTF-8 bytes: ASCII is copied, every other
/// character is checked and percent-encoded, a DNS host with characters outside ASCII goes
/// through IDNA. It remembers where each piece of the output came from, so that an error the RFC
/// 3986 parser finds in the output is reported at its offset in the text as given.
struct Mapping {
    private(set) var output: [UInt8] = []
    /// Output offset → input offset where a piece starts, and whether the piece is a byte-for-byte
    /// copy (inside it offsets shift together) or a conversion (its offsets all map to its start).
    private var pieces: [(output: Int, input: Int, copied: Bool)] = [(0, 0, true)]

    /// Whether anything was converted (else the output is the input).
    var converted: Bool { pieces.count > 1 }

    /// Whether `text` is all ASCII, a word at a time.
    static func isASCII(_ text: String) -> Bool {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let base = bytes.baseAddress else { return true }
            let raw = UnsafeRawPointer(base)
            var i = 0
            var high: UInt64 = 0
            while i &+ 8 <= bytes.count {
                high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            while i < bytes.count {
                high |= UInt64(bytes[i])
                i &+= 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
        return answer ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    init(_ text: String, domainNameHost: (String) -> Bool) throws(URIError) {
        let input = Array(text.utf8)
        let shape = IRIShape(input)
        let domains = shape.domains(domainNameHost: domainNameHost).filter { range in input[range].contains { $0 >= 0x80 } }
        var nextDomain = 0
        output.reserveCapacity(3 * input.count + 16)
        pieces.reserveCapacity(16)
        var i = 0
        while i < input.count {
            // A run of ASCII is copied as it is: it is the parser's to judge (controls included).
            let domainStart = nextDomain < domains.count ? domains[nextDomain].lowerBound : input.count
            var end = i
            while end < domainStart, input[end] < 0x80 { end &+= 1 }
            if end > i {
                output.append(contentsOf: input[i..<end])
                i = end
                continue
            }
            if i == domainStart {
                let domain = domains[nextDomain]
                nextDomain += 1
                let name = String(decoding: input[domain], as: UTF8.self)
                var offset = i
                for scalar in name.unicodeScalars {
                    if !scalar.isASCII, !CleanText.isClean(scalar) { throw Self.unclean(scalar, at: offset, in: shape) }
                    offset += scalar.utf8.count
                }
                let ascii: String
                do throws(DomainName.Failure) {
                    ascii = try DomainName.toASCII(name)
                } catch {
                    throw URIError(
                        code: .invalidDomainName, offset: i, component: shape.component(at: i),
                        message: "the host name '\(name)' at offset \(i) is not a valid internationalized domain name: \(error.reason)",
                        advice: "check the name (IDNA, UTS #46); a name that is right can be given in its ASCII form (xn--…)")
                }
                startConversion(at: i)
                output += ascii.utf8
                endConversion(at: domain.upperBound)
                i = domain.upperBound
                continue
            }
            let (scalar, length) = Self.scalar(at: i, in: input)
            if !CleanText.isClean(scalar) { throw Self.unclean(scalar, at: i, in: shape) }
            guard IRI.isUCSChar(scalar.value) || ((shape.query?.contains(i) ?? false) && IRI.isPrivate(scalar.value)) else {
                let name = "U+" + String(scalar.value, radix: 16, uppercase: true)
                var escaped: [UInt8] = []
                for k in i..<(i + length) { Self.appendEscape(input[k], to: &escaped) }
                throw URIError(
                    code: .notIRICharacter, offset: i, component: shape.component(at: i),
                    message: IRI.isPrivate(scalar.value)
                        ? "the private-use character \(name) at offset \(i) is allowed only in a query (RFC 3987 iprivate)"
                        : "\(name) at offset \(i) is not a character a URL may hold (RFC 3987 ucschar: no noncharacters, specials or controls)",
                    advice: "if it is data, write its UTF-8 bytes percent-encoded: \(String(decoding: escaped, as: UTF8.self))")
            }
            startConversion(at: i)
            for k in i..<(i + length) { Self.appendEscape(input[k], to: &output) }
            endConversion(at: i + length)
            i += length
        }
    }

    /// The scalar of the well-formed UTF-8 sequence (the bytes of a `String`) that starts at `i`
    /// with a byte ≥ 0x80, and its length.
    @inline(__always)
    static func scalar(at i: Int, in p: [UInt8]) -> (Unicode.Scalar, Int) {
        let lead = UInt32(p[i])
        let value: UInt32
        let length: Int
        if lead < 0xE0 {
            value = (lead & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F)
            length = 2
        } else if lead < 0xF0 {
            value = (lead & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
            length = 3
        } else {
            value = (lead & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6 | UInt32(p[i + 3] & 0x3F)
            length = 4
        }
        return (Unicode.Scalar(value)!, length)
    }

    static func unclean(_ scalar: Unicode.Scalar, at offset: Int, in shape: IRIShape) -> URIError {
        let violation = CleanText.Violation(scalar: scalar, offset: offset)
        return URIError(
            code: .uncleanCharacter, offset: offset, component: shape.component(at: offset),
            message: "\(violation) at offset \(offset) is not allowed in a URL (RFC 3987 section 4.1)",
            advice: "remove it: control and bidirectional formatting characters can make a URL show other than it is")
    }

    /// A converted piece starts at input offset `start` (consecutive conversions share one piece:
    /// the parser never stops inside the escapes the mapping writes).
    @inline(__always)
    private mutating func startConversion(at start: Int) {
        if let last = pieces.last, last.copied, last.output == output.count, pieces.count > 1 {
            pieces.removeLast()
            if !pieces[pieces.count - 1].copied { return }
            pieces.append((output.count, start, false))
            return
        }
        pieces.append((output.count, start, false))
    }

    /// The copy after a converted piece starts at input offset `end`.
    @inline(__always)
    private mutating func endConversion(at end: Int) {
        pieces.append((output.count, end, true))
    }

    /// The offset in the input of the output byte at `offset`.
    func inputOffset(_ offset: Int) -> Int {
        var low = 0
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if pieces[middle].output <= offset { low = middle } else { high = middle - 1 }
        }
        let piece = pieces[low]
        return piece.copied ? piece.input + (offset - piece.output) : piece.input
    }

    /// `error`, found in the output, told at its offset in the input.
    func inInput(_ error: URIError) -> URIError {
        let offset = inputOffset(error.offset)
        guard offset != error.offset else { return error }
        return URIError(
            code: error.code, offset: offset, component: error.component,
            message: error.message.replacingOccurrences(of: "offset \(error.offset)", with: "offset \(offset)"),
            advice: error.advice)
    }

    /// Appends `%XX`, uppercase hexadecimal.
    @inline(__always)
    static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        let digits: StaticString = "0123456789ABCDEF"
        out.append(UInt8(ascii: "%"))
        out.append(digits.utf8Start[Int(byte >> 4)])
        out.append(digits.utf8Start[Int(byte & 0xF)])
    }

    /// `%XX`, uppercase hexadecimal.
    static func escape(_ byte: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        appendEscape(byte, to: &out)
        return out
    }
}

/// Where an IRI's components lie, found from its ASCII delimiters only (RFC 3986 appendix B, as
/// the parser splits a URI), before any character is checked.
struct IRIShape {
    var scheme: String?
    var authority: Range<Int>?
    var host: Range<Int>?
    var path: Range<Int> = 0..<0
    var query: Range<Int>?
    var fragmentStart: Int?
    /// For `mailto`: the domain of each address of the path.
    var mailDomains: [Range<Int>] = []

    init(_ p: [UInt8]) {
        let n = p.count
        /// The first of `bytes` in `start..<end`, or `end`.
        func first(_ a: UInt8, _ b: UInt8 = 0, _ c: UInt8 = 0, from start: Int, to end: Int) -> Int {
            var k = start
            while k < end {
                let byte = p[k]
                if byte == a || (b != 0 && byte == b) || (c != 0 && byte == c) { return k }
                k &+= 1
            }
            return end
        }
        var i = 0
        if n > 0, Self.isAlpha(p[0]) {
            var j = 1
            while j < n, Self.isAlpha(p[j]) || (p[j] >= UInt8(ascii: "0") && p[j] <= UInt8(ascii: "9"))
                || p[j] == UInt8(ascii: "+") || p[j] == UInt8(ascii: "-") || p[j] == UInt8(ascii: ".") { j += 1 }
            if j < n, p[j] == UInt8(ascii: ":") {
                // ASCII letters, digits and "+-.": lowercase is `| 0x20` on the letters.
                scheme = String(unsafeUninitializedCapacity: j) { out in
                    for k in 0..<j { out[k] = Self.isAlpha(p[k]) ? p[k] | 0x20 : p[k] }
                    return j
                }
                i = j + 1
            }
        }
        if i + 1 < n, p[i] == UInt8(ascii: "/"), p[i + 1] == UInt8(ascii: "/") {
            let start = i + 2
            let end = first(UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), from: start, to: n)
            authority = start..<end
            let at = first(UInt8(ascii: "@"), from: start, to: end)
            let hostStart = at < end ? at + 1 : start
            var hostEnd = end
            if hostStart < end, p[hostStart] != UInt8(ascii: "[") { hostEnd = first(UInt8(ascii: ":"), from: hostStart, to: end) }
            host = hostStart..<hostEnd
            i = end
        }
        let stop = first(UInt8(ascii: "#"), from: i, to: n)
        let question = first(UInt8(ascii: "?"), from: i, to: stop)
        path = i..<question
        if question < stop { query = (question + 1)..<stop }
        fragmentStart = stop < n ? stop + 1 : nil
        if scheme == "mailto", authority == nil {
            // RFC 6068: to = addr-spec *("," addr-spec); the domain follows an address's last '@'.
            var start = path.lowerBound
            while start < path.upperBound {
                let end = first(UInt8(ascii: ","), from: start, to: path.upperBound)
                var at = end - 1
                while at >= start, p[at] != UInt8(ascii: "@") { at -= 1 }
                if at >= start { mailDomains.append((at + 1)..<end) }
                start = end + 1
            }
        }
    }

    /// The ranges IDNA converts, in order: the host of a DNS scheme, a `mailto` address's domains.
    func domains(domainNameHost: (String) -> Bool) -> [Range<Int>] {
        guard let scheme else { return [] }
        if scheme == "mailto" { return mailDomains }
        guard let host, domainNameHost(scheme) else { return [] }
        return [host]
    }

    /// The component the byte at `offset` belongs to.
    func component(at offset: Int) -> URIComponent? {
        if let fragmentStart, offset >= fragmentStart { return .fragment }
        if let query, offset >= query.lowerBound - 1 { return .query }
        if offset >= path.lowerBound { return .path }
        if let host, host.contains(offset) { return .host }
        if let authority, let host, authority.contains(offset) { return offset < host.lowerBound ? .userinfo : .port }
        return scheme != nil ? .scheme : .path
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
}
