import CourierNames
import CourierURL
#if canImport(Glibc)
import Glibc
#endif

/// RFC 3987 section 3.1 over an IRI's UTF-8 bytes, in one pass into one output string: runs of
/// ASCII are copied as they are (they are the parser's to judge, controls included), every other
/// character is checked and written as its percent-encoded UTF-8, and a DNS host name with
/// characters outside ASCII is replaced by its IDNA form. Only those host names reach libidn2.
///
/// Where the components lie (``IRIShape``) is found only when a host name needs IDNA, or on
/// reaching a character whose rule depends on its component (rare) or that is refused.
///
/// The pass records nothing about where the output came from: when the RFC 3986 parser refuses
/// the output, ``inInput(_:)`` walks the input again to tell the error at its offset in the text
/// as given.
struct Mapping {
    /// The IRI's UTF-8 bytes (well-formed: the bytes of a `String`).
    let input: UnsafeBufferPointer<UInt8>
    /// The shape, when the initializer needed it.
    private let knownShape: IRIShape?
    /// The DNS host names that hold characters outside ASCII, in input order.
    let domains: [Domain]
    /// The exact length of the output when every character maps.
    let outputCount: Int

    /// A host name IDNA converts, and its A-label form or why it has none (thrown when the pass
    /// reaches it, so that an earlier error in the input is reported first).
    struct Domain {
        let range: Range<Int>
        let ascii: Result<String, URIError>
    }

    /// Prepares the pass over `input`: finds the components, converts the host names that need
    /// IDNA, and counts the output; nil when `input` is all ASCII (nothing to map).
    init?(_ input: UnsafeBufferPointer<UInt8>, domainNameHost: (String) -> Bool) {
        let first = Self.firstNonASCII(input)
        guard first < input.count else { return nil }
        let shape = IRIShape(input)
        var count = input.count &+ 2 &* IRILayout.nonASCIICount(input, in: first..<input.count)
        var domains: [Domain] = []
        shape.forEachDomain(in: input, domainNameHost: domainNameHost, where: { IRILayout.nonASCIICount(input, in: $0) > 0 }) { range in
            let domain = Domain(range: range, ascii: Self.idna(input, range, shape: shape))
            if case .success(let ascii) = domain.ascii {
                count += ascii.utf8.count &- range.count &- 2 &* IRILayout.nonASCIICount(input, in: range)
            }
            domains.append(domain)
        }
        self.input = input
        knownShape = shape
        self.domains = domains
        outputCount = count
    }

    /// Prepares the pass over `input`, which holds `nonASCIICount` bytes ≥ 0x80 and no host name
    /// that IDNA converts: every such byte becomes its escape.
    init(escaping input: UnsafeBufferPointer<UInt8>, nonASCIICount: Int) {
        self.input = input
        knownShape = nil
        domains = []
        outputCount = input.count &+ 2 &* nonASCIICount
    }

    /// Whether the text `layout` was read from has a host name that IDNA converts (so the output
    /// is not the text with each byte ≥ 0x80 escaped): a DNS scheme's host with bytes ≥ 0x80, or
    /// a `mailto` path with them (its domains, conservatively).
    static func convertsHostNames(_ input: UnsafeBufferPointer<UInt8>, _ layout: IRILayout, domainNameHost: (String) -> Bool) -> Bool {
        if layout.pathHasNonASCII, IRIShape.isMailto(input, layout.scheme) { return true }
        return layout.hostHasNonASCII && domainNameHost(IRIShape.lowercased(input, layout.scheme))
    }

    /// Where the components lie (found again when the initializer did not need it).
    private var shape: IRIShape { knownShape ?? IRIShape(input) }

    /// The URI text the IRI maps to.
    /// - Throws: ``URIError`` at the offset in the input of the first character that does not map.
    func uri() throws(URIError) -> String {
        var failure: URIError? = nil
        let string = String(unsafeUninitializedCapacity: outputCount) { out in
            do throws(URIError) {
                return try write(into: out.baseAddress!)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return string
    }

    /// The pass: writes the output at `out` (``outputCount`` bytes) and returns its length.
    private func write(into out: UnsafeMutablePointer<UInt8>) throws(URIError) -> Int {
        let p = input.baseAddress!
        let n = input.count
        let source = UnsafeRawPointer(p)
        let target = UnsafeMutableRawPointer(out)
        var i = 0
        var w = 0
        var nextDomain = 0
        var domainStart = domains.first?.range.lowerBound ?? n
        while i < n {
            if i == domainStart {
                let domain = domains[nextDomain]
                nextDomain &+= 1
                switch domain.ascii {
                case .failure(let error): throw error
                case .success(var ascii):
                    ascii.withUTF8 { (out + w).update(from: $0.baseAddress!, count: $0.count) }
                    w &+= ascii.utf8.count
                }
                i = domain.range.upperBound
                domainStart = nextDomain < domains.count ? domains[nextDomain].range.lowerBound : n
                continue
            }
            // ASCII, 8 bytes a step: each word is stored as it is loaded (where the output has room
            // for all 8), and the position moves past its ASCII bytes only.
            while i &+ 8 <= domainStart, w &+ 8 <= outputCount {
                let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                target.storeBytes(of: word, toByteOffset: w, as: UInt64.self)
                let high = UInt64(littleEndian: word) & 0x8080_8080_8080_8080
                if high != 0 {
                    let ascii = high.trailingZeroBitCount &>> 3
                    i &+= ascii
                    w &+= ascii
                    break
                }
                i &+= 8
                w &+= 8
            }
            guard i < domainStart else { continue }
            let byte = p[i]
            if byte < 0x80 {
                out[w] = byte
                i &+= 1
                w &+= 1
                continue
            }
            let (scalar, length) = Self.scalar(at: i, in: p)
            try check(scalar, at: i)
            for k in i..<(i &+ length) {
                Self.writeEscape(p[k], to: out + w)
                w &+= 3
            }
            i &+= length
        }
        return w
    }

    /// Refuses a character outside ASCII that is not clean or not an IRI character where it stands.
    @inline(__always)
    private func check(_ scalar: Unicode.Scalar, at i: Int) throws(URIError) {
        // Most text needs no more: U+00A0–U+200D but U+061C (a bidi mark), U+2070–U+D7FF (past the
        // separators and bidi controls of U+2028–U+2069), U+10000–U+DFFFF but the noncharacters
        // U+xFFFE and U+xFFFF (emoji among them). All are ucschar and clean.
        let v = scalar.value
        if v < 0x200E ? v >= 0xA0 && v != 0x061C : (v >= 0x2070 && v < 0xD800) || (v &- 0x10000 < 0xD0000 && v & 0xFFFE != 0xFFFE) {
            return
        }
        if !CleanText.isClean(scalar) { throw Self.unclean(scalar, at: i, in: shape) }
        if IRI.isUCSChar(scalar.value) || ((shape.query?.contains(i) ?? false) && IRI.isPrivate(scalar.value)) { return }
        let name = "U+" + String(scalar.value, radix: 16, uppercase: true)
        let escaped = String(decoding: (i..<(i + scalar.utf8.count)).flatMap { Self.escape(input[$0]) }, as: UTF8.self)
        throw URIError(
            code: .notIRICharacter, offset: i, component: shape.component(at: i),
            message: IRI.isPrivate(scalar.value)
                ? "the private-use character \(name) at offset \(i) is allowed only in a query (RFC 3987 iprivate)"
                : "\(name) at offset \(i) is not a character a URL may hold (RFC 3987 ucschar: no noncharacters, specials or controls)",
            advice: "if it is data, write its UTF-8 bytes percent-encoded: \(escaped)")
    }

    /// The A-label form of the host name in `range`, or the error the pass throws on reaching it:
    /// an unclean character in it, or libidn2's refusal.
    private static func idna(_ input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, shape: IRIShape) -> Result<String, URIError> {
        var i = range.lowerBound
        while i < range.upperBound {
            guard input[i] >= 0x80 else {
                i &+= 1
                continue
            }
            let (scalar, length) = scalar(at: i, in: input.baseAddress!)
            if !CleanText.isClean(scalar) { return .failure(unclean(scalar, at: i, in: shape)) }
            i &+= length
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: input[range]), as: UTF8.self)
        do throws(DomainName.Failure) {
            return .success(try DomainName.toASCII(name))
        } catch {
            let start = range.lowerBound
            return .failure(URIError(
                code: .invalidDomainName, offset: start, component: shape.component(at: start),
                message: "the host name '\(name)' at offset \(start) is not a valid internationalized domain name: \(error.reason)",
                advice: "check the name (IDNA, UTS #46); a name that is right can be given in its ASCII form (xn--…)"))
        }
    }

    static func unclean(_ scalar: Unicode.Scalar, at offset: Int, in shape: IRIShape) -> URIError {
        let violation = CleanText.Violation(scalar: scalar, offset: offset)
        return URIError(
            code: .uncleanCharacter, offset: offset, component: shape.component(at: offset),
            message: "\(violation) at offset \(offset) is not allowed in a URL (RFC 3987 section 4.1)",
            advice: "remove it: control and bidirectional formatting characters can make a URL show other than it is")
    }

    // MARK: - Where an output byte came from

    /// The offset in the input of the output byte at `offset`: inside a copied run, the byte it
    /// was copied from; inside what a run of consecutive conversions wrote (escapes, a converted
    /// host name), the start of that run in the input (the parser never stops inside the escapes
    /// the mapping writes); past the end, as far past the end of the input.
    func inputOffset(_ offset: Int) -> Int {
        let p = input.baseAddress!
        let n = input.count
        var i = 0
        var o = 0
        var nextDomain = 0
        /// The input offset where the current run of conversions started, when in one.
        var runStart: Int? = nil
        while i < n {
            let written: Int
            let next: Int
            if nextDomain < domains.count, domains[nextDomain].range.lowerBound == i {
                let domain = domains[nextDomain]
                nextDomain &+= 1
                guard case .success(let ascii) = domain.ascii else { return i }
                written = ascii.utf8.count
                next = domain.range.upperBound
            } else if p[i] < 0x80 {
                if o == offset { return i }
                runStart = nil
                i &+= 1
                o &+= 1
                continue
            } else {
                let length = Self.scalar(at: i, in: p).1
                written = 3 &* length
                next = i &+ length
            }
            let start = runStart ?? i
            if offset < o &+ written { return start }
            runStart = start
            o &+= written
            i = next
        }
        return n &+ (offset &- o)
    }

    /// `error`, found in the output, told at its offset in the input.
    func inInput(_ error: URIError) -> URIError {
        let offset = inputOffset(error.offset)
        guard offset != error.offset else { return error }
        return URIError(
            code: error.code, offset: offset, component: error.component,
            message: error.message.replacing("offset \(error.offset)", with: "offset \(offset)"),
            advice: error.advice)
    }

    // MARK: - Bytes

    /// The first byte ≥ 0x80 at or after `start` and before `limit`, or `limit`, a word at a time.
    @inline(__always)
    static func asciiRunEnd(_ p: UnsafePointer<UInt8>, from start: Int, to limit: Int) -> Int {
        let raw = UnsafeRawPointer(p)
        var i = start
        while i &+ 8 <= limit {
            let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & 0x8080_8080_8080_8080
            if high != 0 { return i &+ high.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < limit, p[i] < 0x80 { i &+= 1 }
        return i
    }

    /// The first byte ≥ 0x80 of `input`, or its count: 32 bytes a step (the whole scan, for a URI).
    static func firstNonASCII(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        guard let p = input.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(p)
        var i = 0
        while i &+ 32 <= input.count {
            let bits = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
            if bits & 0x8080_8080_8080_8080 != 0 { break }
            i &+= 32
        }
        return asciiRunEnd(p, from: i, to: input.count)
    }

    /// The scalar of the well-formed UTF-8 sequence that starts at `i` with a byte ≥ 0x80, and
    /// its length.
    @inline(__always)
    static func scalar(at i: Int, in p: UnsafePointer<UInt8>) -> (Unicode.Scalar, Int) {
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
        return (Unicode.Scalar(value).unsafelyUnwrapped, length)
    }

    /// Writes `%XX`, uppercase hexadecimal, at `out`.
    @inline(__always)
    static func writeEscape(_ byte: UInt8, to out: UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789ABCDEF"
        out[0] = UInt8(ascii: "%")
        out[1] = digits.utf8Start[Int(byte &>> 4)]
        out[2] = digits.utf8Start[Int(byte & 0xF)]
    }

    /// `%XX`, uppercase hexadecimal.
    static func escape(_ byte: UInt8) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 3) { buffer, count in
            writeEscape(byte, to: buffer.baseAddress!)
            count = 3
        }
    }
}

/// Where an IRI's components lie, found from its ASCII delimiters only (RFC 3986 appendix B, as
/// the parser splits a URI), before any character is checked.
struct IRIShape {
    /// The scheme's bytes, without the ':'.
    var scheme: Range<Int>?
    /// Whether the scheme is `mailto` (in any case).
    var isMailto = false
    var authority: Range<Int>?
    var host: Range<Int>?
    var path: Range<Int> = 0..<0
    var query: Range<Int>?
    var fragmentStart: Int?
    /// For `mailto`: the domain of each address of the path.
    var mailDomains: [Range<Int>] = []

    init(_ p: UnsafeBufferPointer<UInt8>) {
        let n = p.count
        var i = 0
        if n > 0, Self.isAlpha(p[0]) {
            var j = 1
            while j < n, Self.isAlpha(p[j]) || (p[j] >= UInt8(ascii: "0") && p[j] <= UInt8(ascii: "9"))
                || p[j] == UInt8(ascii: "+") || p[j] == UInt8(ascii: "-") || p[j] == UInt8(ascii: ".") { j += 1 }
            if j < n, p[j] == UInt8(ascii: ":") {
                scheme = 0..<j
                isMailto = j == 6 && Self.isMailto(p, 0..<j)
                i = j + 1
            }
        }
        if i + 1 < n, p[i] == UInt8(ascii: "/"), p[i + 1] == UInt8(ascii: "/") {
            let start = i + 2
            var end = Self.first(UInt8(ascii: "/"), in: p, from: start, to: n)
            end = Self.first(UInt8(ascii: "?"), in: p, from: start, to: end)
            end = Self.first(UInt8(ascii: "#"), in: p, from: start, to: end)
            authority = start..<end
            let at = Self.first(UInt8(ascii: "@"), in: p, from: start, to: end)
            let hostStart = at < end ? at + 1 : start
            var hostEnd = end
            if hostStart < end, p[hostStart] != UInt8(ascii: "[") { hostEnd = Self.first(UInt8(ascii: ":"), in: p, from: hostStart, to: end) }
            host = hostStart..<hostEnd
            i = end
        }
        let stop = Self.first(UInt8(ascii: "#"), in: p, from: i, to: n)
        let question = Self.first(UInt8(ascii: "?"), in: p, from: i, to: stop)
        path = i..<question
        if question < stop { query = (question + 1)..<stop }
        fragmentStart = stop < n ? stop + 1 : nil
        if isMailto, authority == nil {
            // RFC 6068: to = addr-spec *("," addr-spec); the domain follows an address's last '@'.
            var start = path.lowerBound
            while start < path.upperBound {
                let end = Self.first(UInt8(ascii: ","), in: p, from: start, to: path.upperBound)
                var at = end - 1
                while at >= start, p[at] != UInt8(ascii: "@") { at -= 1 }
                if at >= start { mailDomains.append((at + 1)..<end) }
                start = end + 1
            }
        }
    }

    /// The first `byte` of `p` in `start..<end`, or `end` (`memchr`: the path and query are the
    /// long part of a URL).
    @inline(__always)
    static func first(_ byte: UInt8, in p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard start < end, let base = p.baseAddress, let found = memchr(base + start, Int32(byte), end &- start) else { return end }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    /// Calls `body` with each range of `p` (the bytes the shape was found in) that IDNA converts,
    /// in order — the host of a DNS scheme, a `mailto` address's domains — when `needsIDNA` says
    /// so (asked first: the scheme is looked up only for a host that needs it).
    func forEachDomain(
        in p: UnsafeBufferPointer<UInt8>, domainNameHost: (String) -> Bool, where needsIDNA: (Range<Int>) -> Bool = { _ in true },
        _ body: (Range<Int>) -> Void
    ) {
        guard let scheme else { return }
        if isMailto {
            for domain in mailDomains where needsIDNA(domain) { body(domain) }
        } else if let host, needsIDNA(host) {
            if domainNameHost(Self.lowercased(p, scheme)) { body(host) }
        }
    }

    /// The scheme in `range` of `p`, lowercased (ASCII letters, digits and "+-.": lowercase is
    /// `| 0x20` on the letters).
    static func lowercased(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { out in
            for k in range { out[k &- range.lowerBound] = isAlpha(p[k]) ? p[k] | 0x20 : p[k] }
            return range.count
        }
    }

    /// Whether the six bytes of `range` spell `mailto`, in any case.
    static func isMailto(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.count == 6 && zip(p[range], "mailto".utf8).allSatisfy { $0 | 0x20 == $1 }
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
