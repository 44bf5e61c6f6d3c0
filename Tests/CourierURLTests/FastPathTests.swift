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
    }

    static func classify(
        _ bytes: [UInt8],
        with function: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt16>?, UnsafeMutablePointer<UInt16>?, UnsafeMutablePointer<CURLScanHead>?) -> Void
    ) -> Masks {
        let slots = ((bytes.count >> 6) + 1) << 2
        var outside = [UInt16](repeating: 0xAAAA, count: slots)
        var question = [UInt16](repeating: 0x5555, count: slots)
        var head = CURLScanHead()
        bytes.withUnsafeBufferPointer { p in function(p.baseAddress, p.count, &outside, &question, &head) }
        return Masks(outside: outside, question: question, head: [head.notScheme, head.upper, head.slash, head.colon, head.at])
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
        }
    }
}
