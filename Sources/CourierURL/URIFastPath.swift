import CURLScan

/// The fast path of ``URIParser``: URIs with a scheme (and an authority, if any, within the first
/// 64 bytes), up to ``fastPathMaximumLength`` bytes, parsed from bitmasks of the whole input
/// (`curl_scan_classify`: 16 bytes per SSE2 compare) instead of byte by byte, so finding each
/// component costs a trailing-zero count and validating every byte costs nothing beyond the
/// classification.
///
/// Contract: it returns a layout only for valid input, and then exactly the layout the full parser
/// returns; for anything else — an error, a relative reference, a long scheme or authority, an
/// IPvFuture host, a very long input — it returns nil and the caller runs the full parser, which
/// reports errors with their offsets. So it has no error handling of its own, and the full parser
/// stays the one definition of what a URI is: this is an accelerator for it, not a second parser.
///
/// The contract is enforced, not hoped for: `fastPathAgreesWithFullParser` below is checked by the
/// differential fuzzer (`Fuzz/URLParser`, on every input, in CI's `scripts/fuzz`) and by
/// `FastPathTests` (typical URIs across block edges and ~20,000 single-byte mutations). A change
/// here that the fuzzer's agreement check rejects is a bug in this file, never in the full parser.
///
/// Why it stays: with it disabled
/// the views parse 623 MB/s, 3.5× uriparser and 7.6× URLComponents, instead of ~910 MB/s, 5.0× and
/// 11× (docs/url-format.md, "Performance"), and every URL the broker routes takes it; the cost is
/// this file and `CURLScan`, both held to the full parser by the check above.
extension URIParser {
    /// Inputs longer than this take the full parser (the masks live on the stack: 4 bytes per 16
    /// input bytes).
    static let fastPathMaximumLength = 16 * 1024

    /// The fast path of the parser: the layout of `p`, or nil (see the type's contract).
    ///
    /// One of the two instances of ``fastParse(_:maximumLength:iri:)``, each compiled on its own
    /// with the whole parse inlined in it: here `iri` is the constant nil, so the IRI reading is
    /// compiled out and a URI pays nothing for it. (One instance for both, taking `iri` at run
    /// time, is not inlined into its callers, and the parser pays for the reading's branches.)
    @inline(never)
    static func fastParse(_ p: UnsafeBufferPointer<UInt8>, maximumLength: Int) -> URILayout? {
        fastParse(p, maximumLength: maximumLength, iri: nil)
    }

    /// The fast path on IRI text (``IRILayout``): the layout of `p` read with each byte ≥ 0x80
    /// as a character of the query class, and into `iri` that of the URI the text becomes once
    /// they are percent-encoded when there are any (else `iri` is left as it is). The other
    /// instance of ``fastParse(_:maximumLength:iri:)``.
    @inline(never)
    static func fastParse(iriText p: UnsafeBufferPointer<UInt8>, maximumLength: Int, into iri: UnsafeMutablePointer<IRILayout?>) -> URILayout? {
        fastParse(p, maximumLength: maximumLength, iri: iri)
    }

    /// The body of both fast paths, inlined into each with `iri` known: with `iri` (IRI text,
    /// ``IRILayout``), bytes ≥ 0x80 are read as characters of the query class, so the layout is
    /// the one of the URI the text becomes once each of them is percent-encoded, in the text's
    /// own offsets; when there are any, `iri` receives that URI's layout (else it is left as it
    /// is). None of them can be in the scheme, a port or an IP literal (those checks are on ASCII).
    @inline(__always)
    private static func fastParse(_ p: UnsafeBufferPointer<UInt8>, maximumLength: Int, iri: UnsafeMutablePointer<IRILayout?>?) -> URILayout? {
        let n = p.count
        guard n > 0, n <= fastPathMaximumLength, n <= maximumLength, let base = p.baseAddress,
            CharacterClass.isAlpha(base[0])  // no scheme: a relative reference, straight to the full parser
        else { return nil }
        let words = (n &>> 6) &+ 1
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 3 &* words) { masks in
            let outside = masks.baseAddress!
            let question = outside + words
            let high = question + words
            var head = CURLScanHead()
            return withUnsafeMutablePointer(to: &head) { head in
                let nonASCII = curl_scan_classify(
                    base, n, UnsafeMutableRawPointer(outside).assumingMemoryBound(to: UInt16.self),
                    UnsafeMutableRawPointer(question).assumingMemoryBound(to: UInt16.self), head,
                    iri == nil ? nil : UnsafeMutableRawPointer(high).assumingMemoryBound(to: UInt16.self))
                guard let layout = FastScanner(p: p, outside: outside, question: question, head: head).parse() else { return nil }
                // All ASCII (the common case): nothing to move.
                if let iri, nonASCII != 0 { iri.pointee = IRILayout(layout: layout, high: high, words: words) }
                return layout
            }
        }
    }

    /// Component search over the masks of one input.
    struct FastScanner {
        let p: UnsafeBufferPointer<UInt8>
        /// 64-bit words of the `outside` and `question` masks (little-endian: bit k of word w is
        /// byte 64·w + k).
        let outside: UnsafePointer<UInt64>
        let question: UnsafePointer<UInt64>
        /// The head masks where `curl_scan_classify` wrote them, read one field at a time. (Held by
        /// value, the struct was copied out in 16-byte loads right after C's 8-byte stores: loads
        /// that span two stores cannot be forwarded from them and wait for the stores to retire.)
        let head: UnsafePointer<CURLScanHead>

        /// The first byte at or after `start` outside `pchar / "/" / "?"` (or a bad escape), or
        /// the end of the input (the sentinel bit).
        @inline(__always)
        func nextOutside(from start: Int) -> Int {
            var w = start &>> 6
            var bits = UInt64(littleEndian: outside[w]) & (~0 &<< UInt64(start & 63))
            while bits == 0 {
                w &+= 1
                bits = UInt64(littleEndian: outside[w])
            }
            return w &<< 6 &+ bits.trailingZeroBitCount
        }

        /// The first '?' at or after `start` and before `limit`, or `limit`.
        @inline(__always)
        func nextQuestion(from start: Int, limit: Int) -> Int {
            var w = start &>> 6
            var bits = UInt64(littleEndian: question[w]) & (~0 &<< UInt64(start & 63))
            while bits == 0 {
                w &+= 1
                if w &<< 6 >= limit { return limit }
                bits = UInt64(littleEndian: question[w])
            }
            return min(w &<< 6 &+ bits.trailingZeroBitCount, limit)
        }

        /// The first set bit of a head mask at or after `start` (0…63) and before `limit`, or `limit`.
        @inline(__always)
        static func first(_ mask: UInt64, from start: Int, limit: Int) -> Int {
            min((mask & (~0 &<< UInt64(start))).trailingZeroBitCount, limit)
        }

        /// The first `/`, `?` or byte outside the query class at or after `start` (0…63): where an
        /// authority (or a port) ends; 64 when not in the first 64 bytes.
        @inline(__always)
        func authorityEnd(from start: Int) -> Int {
            ((UInt64(littleEndian: outside[0]) | UInt64(littleEndian: question[0]) | head.pointee.slash) & (~0 &<< UInt64(start)))
                .trailingZeroBitCount
        }

        /// Records the port digits in `start..<end` as the full parser does; false when they are
        /// not all digits or the value is above 65535.
        @inline(__always)
        func port(from start: Int, to end: Int, into layout: inout URILayout) -> Bool {
            var value = 0
            var i = start
            while i < end {
                let digit = p[i] &- UInt8(ascii: "0")
                if digit > 9 { return false }
                value = min(value &* 10 &+ Int(digit), 1 << 20)
                i &+= 1
            }
            if value > 65535 { return false }
            layout.portStart = Int32(start)
            if end > start { layout.port = Int32(value) }
            return true
        }

        @inline(__always)
        func parse() -> URILayout? {
            let n = p.count
            // scheme ":" — the first byte a letter (`fastParse` checked it before classifying), then
            // scheme bytes up to a ':' (else: a relative reference or an error, for the full parser).
            let schemeEnd = head.pointee.notScheme.trailingZeroBitCount
            guard schemeEnd < 64, schemeEnd < n, p[schemeEnd] == UInt8(ascii: ":") else { return nil }
            var layout = URILayout()
            layout.end = Int32(n)
            layout.schemeEnd = Int32(schemeEnd)
            layout.schemeHasUppercase = head.pointee.upper & ((1 &<< UInt64(schemeEnd)) &- 1) != 0
            var pathStart = schemeEnd &+ 1

            // "//" authority, within the first 64 bytes
            if pathStart &+ 1 < n, p[pathStart] == UInt8(ascii: "/"), p[pathStart &+ 1] == UInt8(ascii: "/") {
                let start = pathStart &+ 2
                guard start < 64 else { return nil }
                layout.authorityStart = Int32(start)
                let end = authorityEnd(from: start)  // or the '[' of an IP literal
                guard end < 64 else { return nil }
                var hostStart = start
                let at = Self.first(head.pointee.at, from: start, limit: end)
                if at < end {
                    guard Self.first(head.pointee.at, from: at &+ 1, limit: end) == end else { return nil }  // a second '@'
                    layout.userinfoEnd = Int32(at)
                    let colon = Self.first(head.pointee.colon, from: start, limit: at)
                    if colon < at { layout.userinfoColon = Int32(colon) }
                    hostStart = at &+ 1
                }
                layout.hostStart = Int32(hostStart)
                if end < n, p[end] == UInt8(ascii: "[") {
                    // IP-literal: every byte up to ']' is in the query class. IPv6 is checked
                    // here; IPvFuture (rare) is left to the full parser.
                    guard end == hostStart else { return nil }
                    let close = nextOutside(from: hostStart &+ 1)
                    guard close < 63, close < n, p[close] == UInt8(ascii: "]"),
                        IPv6.isAddress(p, from: hostStart &+ 1, to: close)
                    else { return nil }
                    layout.hostKind = .ipv6
                    layout.hostEnd = Int32(close &+ 1)
                    let afterHost = close &+ 1
                    pathStart = authorityEnd(from: afterHost)
                    guard pathStart < 64 else { return nil }
                    if afterHost < pathStart {
                        guard p[afterHost] == UInt8(ascii: ":"), port(from: afterHost &+ 1, to: pathStart, into: &layout) else {
                            return nil
                        }
                    }
                } else {
                    let hostEnd = Self.first(head.pointee.colon, from: hostStart, limit: end)
                    layout.hostEnd = Int32(hostEnd)
                    layout.hostKind = hostEnd > hostStart && CharacterClass.isDigit(p[hostStart])
                        && IPv4.isAddress(p, from: hostStart, to: hostEnd) ? .ipv4 : .regName
                    if hostEnd < end, !port(from: hostEnd &+ 1, to: end, into: &layout) { return nil }
                    pathStart = end
                }
                // The authority ends at '/', '?', '#' or the end; anything else is an error.
                if pathStart < n {
                    let byte = p[pathStart]
                    guard byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") else {
                        return nil
                    }
                }
            }

            // path [ "?" query ] [ "#" fragment ]: every byte in the query class but one '#'.
            layout.pathStart = Int32(pathStart)
            let hash = nextOutside(from: pathStart)
            if hash < n {
                guard p[hash] == UInt8(ascii: "#"), nextOutside(from: hash &+ 1) == n else { return nil }
                layout.fragmentStart = Int32(hash &+ 1)
            }
            let question = nextQuestion(from: pathStart, limit: hash)
            layout.pathEnd = Int32(question)
            if question < hash { layout.queryStart = Int32(question &+ 1) }
            return layout
        }
    }
}
extension URIReference {
    /// Whether the fast path (``URIParser/fastParse(_:maximumLength:)``) agrees with the full
    /// parser on `bytes`: it either declines, or returns exactly the full parser's layout for an
    /// input the full parser accepts. For the differential fuzzer and tests.
    @_spi(Testing)
    public static func fastPathAgreesWithFullParser(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let fast = URIParser.fastParse(bytes, maximumLength: URIParsingOptions.default.maximumLength) else { return true }
        guard let full = try? URIParser.parse(bytes, maximumLength: URIParsingOptions.default.maximumLength) else { return false }
        return fast == full
    }

    /// Whether the fast path takes `bytes` (for tests that check it is not silently bypassed).
    @_spi(Testing)
    public static func fastPathAccepts(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        URIParser.fastParse(bytes, maximumLength: URIParsingOptions.default.maximumLength) != nil
    }
}
