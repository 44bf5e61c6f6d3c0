/// IRI text as the fast path reads it, for CourierIRI: each byte ≥ 0x80 taken as a character of
/// the query class, so that the layout is the one of the URI the text becomes when every such byte
/// is percent-encoded (`é` → `%C3%A9`), in the text's own offsets.
///
/// This is what lets the IRI mapping run the parser once, on the text as given, instead of a
/// failed fast path on the text and a parse of the mapped output: the mapping writes the output
/// and ``uri(_:from:)`` moves the offsets. It holds because a percent-encoded byte is valid in
/// every component that may hold one (userinfo, a reg-name host, path, query, fragment) and the
/// fast path's other checks — scheme, port, IPv4 and IPv6 hosts — refuse bytes ≥ 0x80 as before.
/// `IRILayoutTests` and the fuzzer hold the result to the full parser's layout of the output.
@usableFromInline
package struct IRILayout: Sendable {
    /// The components, offsets in the text.
    @usableFromInline let layout: URILayout
    /// The number of bytes ≥ 0x80 in the text.
    package let nonASCIICount: Int

    @usableFromInline
    init(layout: URILayout, nonASCIICount: Int) {
        self.layout = layout
        self.nonASCIICount = nonASCIICount
    }

    /// The scheme's bytes (without the ':').
    package var scheme: Range<Int> { 0..<Int(layout.schemeEnd) }
    /// The host's bytes, when there is an authority.
    package var host: Range<Int>? { layout.hostStart >= 0 ? Int(layout.hostStart)..<Int(layout.hostEnd) : nil }
    package var path: Range<Int> { Int(layout.pathStart)..<Int(layout.pathEnd) }
    package var query: Range<Int>? { layout.queryStart >= 0 ? Int(layout.queryStart)..<Int(layout.queryEnd) : nil }

    /// The URI `output` is, where `output` is `input` (the text this layout was read from) with
    /// each byte ≥ 0x80 replaced by three bytes (its escape): no parse, the offsets moved by two
    /// bytes per such byte before them.
    package func uri(_ output: String, from input: UnsafeBufferPointer<UInt8>) -> URIReference {
        precondition(output.utf8.count == input.count &+ 2 &* nonASCIICount, "the output is not the input with each byte ≥ 0x80 escaped")
        var mapped = layout
        // Counted up to `counted`: the offsets are visited in increasing order, so the input is
        // counted once in all.
        var counted = 0
        var count = 0
        func moved(_ offset: Int32) -> Int32 {
            guard offset >= 0 else { return offset }
            let o = Int(offset)
            if o < counted {
                counted = 0
                count = 0
            }
            count &+= Self.nonASCIICount(input, in: counted..<o)
            counted = o
            return offset &+ Int32(truncatingIfNeeded: 2 &* count)
        }
        mapped.schemeEnd = moved(layout.schemeEnd)
        mapped.authorityStart = moved(layout.authorityStart)
        mapped.userinfoColon = moved(layout.userinfoColon)
        mapped.userinfoEnd = moved(layout.userinfoEnd)
        mapped.hostStart = moved(layout.hostStart)
        mapped.hostEnd = moved(layout.hostEnd)
        mapped.portStart = moved(layout.portStart)
        mapped.pathStart = moved(layout.pathStart)
        mapped.pathEnd = moved(layout.pathEnd)
        mapped.queryStart = moved(layout.queryStart)
        mapped.fragmentStart = moved(layout.fragmentStart)
        mapped.end = Int32(truncatingIfNeeded: output.utf8.count)
        return URIReference(string: output, layout: mapped)
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
        var nonASCII = 0
        guard let layout = fastLayout(text, maximumLength: URIParsingOptions.default.maximumLength, nonASCII: &nonASCII) else { return nil }
        if nonASCII == 0 { return .uri(URIReference(string: text, layout: layout)) }
        // The escapes must fit the parser's limit too (the fast path checked the text's length).
        guard text.utf8.count &+ 2 &* nonASCII <= URIParsingOptions.default.maximumLength else { return nil }
        return .iri(IRILayout(layout: layout, nonASCIICount: nonASCII))
    }

    /// Whether `uri`'s layout is the one the full parser gives its string: for tests and the
    /// fuzzer, on URIs ``IRILayout/uri(_:from:)`` made.
    @_spi(Testing)
    public static func layoutAgreesWithFullParser(_ uri: URIReference) -> Bool {
        var string = uri.string
        return string.withUTF8 { bytes in
            (try? URIParser.parse(bytes, maximumLength: URIParsingOptions.default.maximumLength)) == uri.layout
        }
    }

    /// `bytes` read as IRI text by the fast path, then moved as ``IRILayout/uri(_:from:)`` moves
    /// it for `bytes` with each byte ≥ 0x80 percent-encoded; nil when the fast path declines.
    /// Whether that equals the full parser's layout of the encoded bytes is
    /// ``layoutAgreesWithFullParser(_:)``. For tests comparing the C classifications.
    @_spi(Testing)
    public static func fastPathParse(iriBytes bytes: UnsafeBufferPointer<UInt8>) -> URIReference? {
        var nonASCII = 0
        guard let layout = URIParser.fastParse(bytes, maximumLength: URIParsingOptions.default.maximumLength, nonASCII: &nonASCII) else {
            return nil
        }
        var encoded: [UInt8] = []
        for byte in bytes {
            if byte < 0x80 {
                encoded.append(byte)
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return IRILayout(layout: layout, nonASCIICount: nonASCII).uri(String(decoding: encoded, as: UTF8.self), from: bytes)
    }
}
