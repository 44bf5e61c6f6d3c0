import CURLScan
@_spi(Testing) import CourierURL
import Testing
import URIParserOracle

/// The fast path (SSE2 classification, `URIFastPath.swift`) must give exactly the full parser's
/// layout or decline: checked on typical URIs, on every length around the 16- and 64-byte block
/// edges, and on single-byte mutations of them (a small deterministic differential fuzz).
@Suite struct FastPathTests {
    static let typical = [
        "http://a/", "https://www.example.com/a/b/c?x=1#f", "todolist://www.acme.com?Quarterly%20Report#202606231300",
        "ftp://user:pa%20ss@192.0.2.16:21/files/x.txt", "http://[2001:db8::7]:8080/p?q", "http://[::ffff:192.0.2.1]/",
        "http://[v1.fe80::a+en1]/", "mailto:John.Doe@example.com", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
        "news:comp.infosystems.www.servers.unix", "tel:+1-816-555-1212", "HTTP://Example.COM:/", "file:///etc/hosts",
        "x-callback-url://h/p;a=b?x=%E6%97%A5&y=%F0%9F%93%85#a/b?c", "s:", "s://", "s://@", "s://u@h:1@x",
        "coap+tcp://1.2.3.4:65535/", "http://h:65536/", "http://999.1.1.1/", "http://h/%zz", "http://h/%4", "a:b#c#d",
    ]

    /// Every typical URI stretched so that its parts cross the 16- and 64-byte block edges.
    static var corpus: [String] {
        var all = typical
        for url in typical {
            for pad in [1, 7, 14, 15, 16, 17, 30, 47, 48, 60, 63, 64, 65, 120] {
                let filler = String(repeating: "a", count: pad)
                all.append(url.replacing("://", with: "://\(filler).", maxReplacements: 1))
                all.append(url + filler)
                all.append(url.replacing(":", with: "\(filler):", maxReplacements: 1))
            }
        }
        return all
    }

    func agree(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { URIReference.fastPathAgreesWithFullParser($0) }
    }

    @Test func fastPathTakesTypicalURIs() {
        for text in ["http://a/", "https://u:p@www.example.com:8080/a/b?x=1&y=%20#f", "http://[2001:db8::7]:8080/p?q", "mailto:a@b"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { URIReference.fastPathAccepts($0) }, "\(text)")
        }
    }

    @Test func fastPathAgreesWithFullParserAcrossBlockEdges() {
        for text in Self.corpus {
            #expect(agree(text), "\(text)")
        }
    }

    @Test func fastPathAgreesWithFullParserOnSingleByteMutations() {
        let replacements: [UInt8] = Array("%[]@:#?/ 0fZ.".utf8) + [0x00, 0x7F, 0xC3, 0x22, 0x5E]
        var checked = 0
        for text in Self.typical + Self.corpus.filter({ $0.utf8.count > 60 }).prefix(12) {
            let bytes = Array(text.utf8)
            for index in bytes.indices {
                for byte in replacements where byte != bytes[index] {
                    var mutated = bytes
                    mutated[index] = byte
                    let agrees = mutated.withUnsafeBufferPointer { URIReference.fastPathAgreesWithFullParser($0) }
                    #expect(agrees, "\(mutated)")
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
    }
}

/// `curl_scan_classify` picks AVX2 at run time when the CPU has it; the SSE2 baseline must give
/// the same masks, on every length around the block edges and on arbitrary bytes.
@Suite struct ByteClassificationTests {
    struct Masks: Equatable {
        var outside: [UInt16]
        var question: [UInt16]
        var head: [UInt64]
        /// The bytes ≥ 0x80, in IRI mode.
        var high: [UInt16]?
        /// What the classification returned: whether there are any (in IRI mode).
        var nonASCII: Int32
    }

    static func classify(
        _ bytes: [UInt8], iri: Bool = false,
        with function: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt16>?, UnsafeMutablePointer<UInt16>?, UnsafeMutablePointer<CURLScanHead>?, UnsafeMutablePointer<UInt16>?) -> Int32
    ) -> Masks {
        let slots = ((bytes.count >> 6) + 1) << 2
        var outside = [UInt16](repeating: 0xAAAA, count: slots)
        var question = [UInt16](repeating: 0x5555, count: slots)
        var head = CURLScanHead()
        var high = [UInt16](repeating: 0x3333, count: slots)
        let nonASCII = bytes.withUnsafeBufferPointer { p in
            iri ? function(p.baseAddress, p.count, &outside, &question, &head, &high) : function(p.baseAddress, p.count, &outside, &question, &head, nil)
        }
        return Masks(
            outside: outside, question: question, head: [head.notScheme, head.upper, head.slash, head.colon, head.at], high: iri ? high : nil,
            nonASCII: nonASCII)
    }

    @Test func dispatchedAndBaselineClassificationsAgree() {
        var generator = SplitMix64(state: 0xFA57)
        let alphabet = Array("aZ09%?/:@#[]-. fF~\"^`{}".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF]
        var inputs: [[UInt8]] = []
        for length in 0...200 {
            inputs.append((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            inputs.append(Array("https://u:p@www.example.com:8080/a%20b?q=%zz#f".utf8.prefix(length)))
            inputs.append((0..<length).map { $0 % 3 == 0 ? UInt8(ascii: "%") : UInt8(ascii: "a") })
        }
        for bytes in inputs {
            #expect(Self.classify(bytes, with: curl_scan_classify) == Self.classify(bytes, with: curl_scan_classify_baseline), "\(bytes)")
            let iri = Self.classify(bytes, iri: true, with: curl_scan_classify)
            #expect(iri == Self.classify(bytes, iri: true, with: curl_scan_classify_baseline), "\(bytes)")
            // IRI mode: the bytes ≥ 0x80 leave `outside` (nothing else changes) and are the `high`
            // mask, every block of it written.
            let plain = Self.classify(bytes, with: curl_scan_classify)
            #expect(iri.question == plain.question && iri.head == plain.head, "\(bytes)")
            var expectedHigh = [UInt16](repeating: 0, count: plain.outside.count)
            for (offset, byte) in bytes.enumerated() {
                let bit = plain.outside[offset >> 4] >> (offset & 15) & 1
                let iriBit = iri.outside[offset >> 4] >> (offset & 15) & 1
                // A '%' keeps its bit: before a byte ≥ 0x80 it is a bad escape in both modes.
                #expect(iriBit == (byte >= 0x80 ? 0 : bit), "\(bytes) at \(offset)")
                if byte >= 0x80 { expectedHigh[offset >> 4] |= 1 << (offset & 15) }
            }
            #expect(iri.high == expectedHigh, "\(bytes)")
            #expect(iri.nonASCII == (bytes.contains { $0 >= 0x80 } ? 1 : 0) && plain.nonASCII == 0, "\(bytes)")
        }
    }
}

/// The fast path reading IRI text (`IRILayout`): bytes ≥ 0x80 taken as characters to
/// percent-encode, and the layout moved to the encoded URI, must equal the full parser's layout of
/// that URI — or the fast path declines. And it must not decline what it takes once encoded.
@Suite struct IRILayoutTests {
    /// `bytes` with each byte ≥ 0x80 percent-encoded.
    static func encoded(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { byte -> [UInt8] in
            byte < 0x80 ? [byte] : Array(("%" + String(byte, radix: 16, uppercase: true)).utf8)
        }
    }

    /// Whether the IRI reading of `bytes` agrees with the full parser on the encoded bytes, and
    /// takes them whenever the fast path takes the encoded bytes; whether it took them.
    @discardableResult
    func check(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        let uri = bytes.withUnsafeBufferPointer { URIReference.fastPathParse(iriBytes: $0) }
        let plain = Self.encoded(bytes).withUnsafeBufferPointer { URIReference.fastPathAccepts($0) }
        if let uri {
            #expect(Array(uri.string.utf8) == Self.encoded(bytes), "\(label())")
            #expect(URIReference.layoutAgreesWithFullParser(uri), "\(label()): \(uri)")
        }
        // Not the converse: the encoded bytes are longer, and an authority can pass the 64th byte.
        if plain { #expect(uri != nil, "\(label()): the fast path takes the encoded bytes, not the IRI") }
        return uri != nil
    }

    @Test func charactersOutsideASCIIInEachComponent() {
        let taken = [
            "x-app://üser:pä@h/p", "x-app://u@hö.example:8080/p", "x-app://h/pä/th", "x-app://h/p?qü=é", "x-app://h/p#frä",
            "x-app:/ünï/😀#frägment", "mailto:Zoë@example.com?subject=Café", "todolist://www.acme.com?Café", "x-app:é", "x-app:/p/é",
        ]
        for text in taken { #expect(check(Array(text.utf8), text), "\(text)") }
        // Where the fast path's own checks refuse them: scheme, port, IP literal; and an ASCII error.
        for text in ["é-app://h/", "xé://h/", "x-app://h:8é/", "x-app://[::é]/", "x-app://[::1]é/", "x-app://h/ p?é", "x-app://h/é%zz", "x-app://h/%é"] {
            #expect(!check(Array(text.utf8), text), "\(text)")
        }
    }

    /// A byte ≥ 0x80 at offset 0, at the end, and on each side of the 16-, 32- and 64-byte block
    /// edges of the classification, in the authority (the first 64 bytes) and past it.
    @Test func charactersOutsideASCIIAtTheBlockEdges() {
        for character in ["é", "例", "😀"] {
            #expect(!check(Array((character + "x://h/").utf8), "at 0"))
            #expect(check(Array(("x://h/" + character).utf8), "at the end"))
            for offset in [12, 13, 15, 16, 17, 30, 31, 32, 33, 34, 47, 48, 60, 62, 63, 64, 65, 95, 96, 127, 128, 129] {
                let base = "x-app://u@" + String(repeating: "h", count: 50) + "/" + String(repeating: "p", count: 100)
                var bytes = Array(base.utf8)
                bytes.insert(contentsOf: Array(character.utf8), at: offset)
                check(bytes, "\(character) at \(offset)")
                let rest = Array(base.utf8)[offset...]
                #expect(check(Array("x-app:".utf8) + Array(String(repeating: "p", count: offset).utf8) + Array(character.utf8) + rest, "path, \(character) at \(offset + 6)"))
            }
        }
    }

    /// Bytes that are not UTF-8 (the reading is on bytes: each is encoded on its own).
    @Test func bytesThatAreNotUTF8() {
        for bad in [[0xFF], [0x80], [0xC3], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98]] as [[UInt8]] {
            #expect(check(Array("x-app://h/p?q=".utf8) + bad, "\(bad) at the end"))
            #expect(check(Array("x-app://h/".utf8) + bad + Array("/p".utf8), "\(bad) in the path"))
        }
    }

    /// Every typical URI of `FastPathTests` with a character outside ASCII inserted at every offset.
    @Test func insertedAtEveryOffsetOfTheTypicalURIs() {
        var taken = 0
        for url in FastPathTests.typical {
            let bytes = Array(url.utf8)
            for offset in 0...bytes.count {
                for character in ["é", "😀"] {
                    var mutated = bytes
                    mutated.insert(contentsOf: Array(character.utf8), at: offset)
                    if check(mutated, "\(url) with \(character) at \(offset)") { taken += 1 }
                }
            }
        }
        #expect(taken > 500)
    }
}
