/// IRI text as the fast path reads it, for CourierIRI: each byte ≥ 0x80 taken as a character of
/// the query class, so that the layout is the one of the URI the text becomes when every such byte
/// is percent-encoded (`é` → `%C3%A9`), in the text's own offsets.
///
/// This is what lets the IRI mapping run the parser once, on the text as given, instead of a
/// failed fast path on the text and a parse of the mapped output: the mapping writes the output,
/// and its layout is the text's with each offset moved by two bytes per byte ≥ 0x80 before it
/// (counted in the classification's mask of them, a word of 64 bytes at a time). It holds because a percent-encoded byte is valid in
/// every component that may hold one (userinfo, a reg-name host, path, query, fragment) and the
/// fast path's other checks — scheme, port, IPv4 and IPv6 hosts — refuse bytes ≥ 0x80 as before.
/// `IRILayoutTests` and the fuzzer hold the result to the full parser's layout of the output.
@usableFromInline
package struct IRILayout: Sendable {
    /// The components, offsets in the text.
    @usableFromInline let layout: URILayout
    /// The components of the URI the text becomes.
    let encoded: URILayout
    /// The number of bytes ≥ 0x80 in the text.
    @usableFromInline package let nonASCIICount: Int

    /// `layout` of a text whose bytes ≥ 0x80 are the bits of the `words` 64-bit words at `high`
    /// (little-endian: bit k of word w is byte 64·w + k).
    init(layout: URILayout, high: UnsafePointer<UInt64>, words: Int) {
        func bits(_ w: Int) -> UInt64 { UInt64(littleEndian: high[w]) }
        var count = 0
        for w in 0..<words { count &+= bits(w).nonzeroBitCount }
        var encoded = layout
        if count > 0 {
            for lane in 0..<URILayout.offsetLanes where layout.lanes[lane] >= 0 {
                let offset = Int(layout.lanes[lane])
                var before = (bits(offset &>> 6) & ((1 &<< UInt64(offset & 63)) &- 1)).nonzeroBitCount
                for w in 0..<(offset &>> 6) { before &+= bits(w).nonzeroBitCount }
                encoded.lanes[lane] &+= Int32(truncatingIfNeeded: 2 &* before)
            }
        }
        self.layout = layout
        self.encoded = encoded
        nonASCIICount = count
    }

    /// The scheme's bytes (without the ':').
    package var scheme: Range<Int> { 0..<Int(layout.schemeEnd) }
    /// The host's bytes, when there is an authority.
    package var host: Range<Int>? { layout.hostStart >= 0 ? Int(layout.hostStart)..<Int(layout.hostEnd) : nil }
    package var path: Range<Int> { Int(layout.pathStart)..<Int(layout.pathEnd) }
    package var query: Range<Int>? { layout.queryStart >= 0 ? Int(layout.queryStart)..<Int(layout.queryEnd) : nil }

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

/// What the fast path makes of IRI text.
@usableFromInline
package enum IRIFastParse: Sendable {
    /// The text is all ASCII and this URI.
    case uri(URIReference)
    /// The text holds bytes ≥ 0x80 and is a URI once they are percent-encoded.
    case iri(IRILayout)
}

extension URIReference {
    /// `text` read by the fast path as IRI text (``IRILayout``); nil when the fast path does not
    /// take it (an error, a relative reference, a long authority: the caller maps and parses).
    @inlinable
    package static func fastPathParse(iri text: String) -> IRIFastParse? {
        guard let iri = iriLayout(text) else { return nil }
        if iri.nonASCIICount == 0 { return .uri(URIReference(string: text, layout: iri.layout)) }
        // The escapes must fit the parser's limit too (the fast path checked the text's length).
        guard text.utf8.count &+ 2 &* iri.nonASCIICount <= URIParsingOptions.default.maximumLength else { return nil }
        return .iri(iri)
    }

    /// The fast path's IRI reading of `string`, or nil.
    @usableFromInline
    static func iriLayout(_ string: borrowing String) -> IRILayout? {
        let fast = string.utf8.withContiguousStorageIfAvailable { bytes -> IRILayout? in
            withUnsafeTemporaryAllocation(of: IRILayout.self, capacity: 1) { iri in
                guard URIParser.fastParse(bytes, maximumLength: URIParsingOptions.default.maximumLength, iri: iri.baseAddress!) != nil else { return nil }
                return iri.baseAddress!.move()
            }
        }
        return fast ?? nil
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
        let iri = withUnsafeTemporaryAllocation(of: IRILayout.self, capacity: 1) { iri -> IRILayout? in
            guard URIParser.fastParse(bytes, maximumLength: URIParsingOptions.default.maximumLength, iri: iri.baseAddress!) != nil else { return nil }
            return iri.baseAddress!.move()
        }
        guard let iri else { return nil }
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
