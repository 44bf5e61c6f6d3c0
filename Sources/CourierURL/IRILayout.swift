/// IRI text as the fast path reads it, for CourierIRI: each byte ≥ 0x80 taken as a character of
/// the query class, the layout is the one of the URI the text becomes when every such byte is
/// percent-encoded (`é` → `%C3%A9`).
///
/// This is what lets the IRI mapping run the parser once, on the text as given, instead of a
/// failed fast path on the text and a parse of the mapped output: the mapping writes the output,
/// and its layout is the text's with each offset moved by two bytes per byte ≥ 0x80 before it
/// (counted in the classification's mask of them). It holds because a percent-encoded byte is
/// valid in every component that may hold one (userinfo, a reg-name host, path, query, fragment)
/// and the fast path's other checks — scheme, port, IPv4 and IPv6 hosts — refuse bytes ≥ 0x80 as
/// before. `IRILayoutTests` and the fuzzer hold the result to the full parser's layout of the
/// output.
@usableFromInline
package struct IRILayout: Sendable {
    /// The components of the URI the text becomes.
    @usableFromInline let encoded: URILayout
    /// The number of bytes ≥ 0x80 in the text (at least one: the fast path makes no IRILayout for
    /// text all ASCII).
    @usableFromInline package let nonASCIICount: Int
    /// Whether the host, or the path, holds bytes ≥ 0x80 (so that a DNS host name or a `mailto`
    /// address may need IDNA).
    package let hostHasNonASCII: Bool
    package let pathHasNonASCII: Bool

    /// `layout` of a text whose bytes ≥ 0x80 are the bits of the `words` 64-bit words at `high`
    /// (little-endian: bit k of word w is byte 64·w + k).
    init(layout: URILayout, high: UnsafePointer<UInt64>, words: Int) {
        func bits(_ w: Int) -> UInt64 { UInt64(littleEndian: high[w]) }
        var count = 0
        // The offsets of the first and the last byte ≥ 0x80: an offset up to the first moves by
        // nothing and one past the last by all, without counting.
        var first = -1
        var last = -1
        for w in 0..<words {
            let b = bits(w)
            guard b != 0 else { continue }
            count &+= b.nonzeroBitCount
            if first < 0 { first = w &<< 6 &+ b.trailingZeroBitCount }
            last = w &<< 6 &+ 63 &- b.leadingZeroBitCount
        }
        /// The number of bytes ≥ 0x80 before `offset` (≥ 0).
        func before(_ offset: Int32) -> Int {
            let o = Int(offset)
            if o <= first { return 0 }
            if o > last { return count }
            var n = (bits(o &>> 6) & ((1 &<< UInt64(o & 63)) &- 1)).nonzeroBitCount
            for w in 0..<(o &>> 6) { n &+= bits(w).nonzeroBitCount }
            return n
        }
        func moved(_ offset: Int32) -> Int32 { offset < 0 ? offset : offset &+ Int32(truncatingIfNeeded: 2 &* before(offset)) }
        nonASCIICount = count
        hostHasNonASCII = layout.hostStart >= 0 && before(layout.hostEnd) > before(layout.hostStart)
        pathHasNonASCII = before(layout.pathEnd) > before(layout.pathStart)
        // The scheme is ASCII and first: `schemeEnd` does not move.
        var encoded = layout
        encoded.authorityStart = moved(layout.authorityStart)
        encoded.userinfoEnd = moved(layout.userinfoEnd)
        encoded.userinfoColon = moved(layout.userinfoColon)
        encoded.hostStart = moved(layout.hostStart)
        encoded.hostEnd = moved(layout.hostEnd)
        encoded.portStart = moved(layout.portStart)
        encoded.pathStart = moved(layout.pathStart)
        encoded.pathEnd = moved(layout.pathEnd)
        encoded.queryStart = moved(layout.queryStart)
        encoded.fragmentStart = moved(layout.fragmentStart)
        encoded.end = moved(layout.end)
        self.encoded = encoded
    }

    /// The scheme's bytes (without the ':'), in the text and in the URI alike.
    package var scheme: Range<Int> { 0..<Int(encoded.schemeEnd) }

    /// The URI `output` is, where `output` is the text this layout was read from with each byte
    /// ≥ 0x80 replaced by three bytes (its escape): no parse.
    package func uri(_ output: String) -> URIReference {
        precondition(Int(encoded.end) == output.utf8.count, "the output is not the text with each byte ≥ 0x80 escaped")
        return URIReference(string: output, layout: encoded)
    }

    /// The number of bytes ≥ 0x80 of `input` in `range`, a word at a time.
    package static func nonASCIICount(_ input: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Int {
        guard let base = input.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        var i = range.lowerBound
        var count = 0
        while i &+ 8 <= range.upperBound {
            count &+= (raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080).nonzeroBitCount
            i &+= 8
        }
        while i < range.upperBound {
            count &+= Int(base[i] &>> 7)
            i &+= 1
        }
        return count
    }
}

extension URIReference {
    /// `text` read by the fast path as IRI text (``IRILayout``): the URI when the text is all
    /// ASCII and the fast path takes it; else nil, and `reading` (nil on entry) receives what the
    /// text is as IRI text when it holds bytes ≥ 0x80 and the fast path takes it. Both nil: the
    /// fast path declined (an error, a relative reference, a long authority), the caller maps and
    /// parses.
    ///
    /// Shaped as the parser's own initializer, one call from the string to the value with the
    /// layout written into it, so that a URI given to `IRI.uri(from:)` costs the parser's fast
    /// path and little more. (An enum of the two outcomes as the result copies the layout through
    /// memory in words of other widths than it is stored in: store-forwarding stalls.)
    @usableFromInline
    package init?(iriText text: borrowing String, reading: inout IRILayout?) {
        let fast = text.utf8.withContiguousStorageIfAvailable {
            URIParser.fastParse(iriText: $0, maximumLength: URIParsingOptions.default.maximumLength, into: &reading)
        }
        guard let fast, let layout = fast else { return nil }
        if let iri = reading {
            // The escapes must fit the parser's limit too (the fast path checked the text's length).
            if text.utf8.count &+ 2 &* iri.nonASCIICount > URIParsingOptions.default.maximumLength { reading = nil }
            return nil
        }
        // Borrowed, copied here: one retain, for the value. (Taken as owned, the caller would
        // retain it for the call and every other way out of here release it.)
        self.string = copy text
        self.layout = layout
    }

    /// Whether `uri`'s layout is the one the full parser gives its string: for tests and the
    /// fuzzer, on URIs ``IRILayout/uri(_:)`` made.
    @_spi(Testing)
    public static func layoutAgreesWithFullParser(_ uri: URIReference) -> Bool {
        var string = uri.string
        return string.withUTF8 { bytes in
            (try? URIParser.parse(bytes, maximumLength: URIParsingOptions.default.maximumLength)) == uri.layout
        }
    }

    /// `bytes` read as IRI text by the fast path, as the URI of `bytes` with each byte ≥ 0x80
    /// percent-encoded (``IRILayout/uri(_:)``); nil when the fast path declines.
    /// Whether that equals the full parser's layout of the encoded bytes is
    /// ``layoutAgreesWithFullParser(_:)``. For tests comparing the C classifications.
    @_spi(Testing)
    public static func fastPathParse(iriBytes bytes: UnsafeBufferPointer<UInt8>) -> URIReference? {
        var reading: IRILayout? = nil
        guard let layout = URIParser.fastParse(iriText: bytes, maximumLength: URIParsingOptions.default.maximumLength, into: &reading) else { return nil }
        guard let iri = reading else { return URIReference(string: String(decoding: bytes, as: UTF8.self), layout: layout) }
        var encoded: [UInt8] = []
        for byte in bytes {
            if byte < 0x80 {
                encoded.append(byte)
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return iri.uri(String(decoding: encoded, as: UTF8.self))
    }
}
