import CourierURL
import Foundation
import Testing
import URIParserOracle

/// liburiparser, a strict RFC 3986 parser in C written by others, as an oracle: on the benchmark's
/// corpus, on hand-picked edge cases and on their single-byte mutations, CourierURL and uriparser
/// give the same verdict and the same components, or a difference listed in ``KnownDifference``
/// (the table in docs/url-format.md) explains the disagreement and they agree on the rest.
@Suite struct URIParserOracleTests {
    /// Inputs both must read alike: each production of RFC 3986 that is easy to get wrong.
    static let edgeCases = [
        // IPv6: compression, embedded IPv4, the limits of each form, and near misses.
        "http://[::]/", "http://[::1]:80/x", "http://[1:2:3:4:5:6:7:8]/", "http://[1:2:3:4:5:6:7::]/", "http://[::1:2:3:4:5:6:7]/",
        "http://[1:2:3:4:5:6:7:8:9]/", "http://[1::2::3]/", "http://[:1]/", "http://[1:]/", "http://[12345::]/", "http://[::ABCD]/",
        "http://[::ffff:192.0.2.1]/", "http://[1:2:3:4:5:6:1.2.3.4]/", "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[a::b:c:d:e:f:1.2.3.4]/",
        "http://[::01.2.3.4]/", "http://[::1.2.3.04]/", "http://[::1.2.3]/", "http://[::1.2.3.4.5]/", "http://[::256.1.1.1]/",
        "http://[]/", "http://[::1", "http://[::1]x/", "http://x[::1]/", "http://h]/", "http://[fe80::1%25eth0]/", "http://u@[::1]:/",
        // IPvFuture.
        "http://[v1.x]/", "http://[V1.x]/", "http://[vF.a:b+c]/", "http://[v1.]/", "http://[v.x]/", "http://[vG.x]/", "http://[v1.a%20]/",
        // IPv4 and what only looks like it.
        "http://1.2.3.4/", "http://0.0.0.0/", "http://255.255.255.255/", "http://256.1.1.1/", "http://01.2.3.4/", "http://1.2.3/",
        "http://1.2.3.4./", "http://1.2.3.4.5/", "http://999.1.1.1/",
        // Empty and odd authorities.
        "a://", "a:///", "file:///etc/hosts", "//", "///", "http://@/", "http://:80/", "http://u:p@h/", "http://a@b@c/", "http://a:b@c:d@e",
        "http://%41/", "http://a%2/", "http://h:/", "HTTP://EXAMPLE.COM:/",
        // Ports.
        "http://h:0/", "http://h:080/", "http://h:65535/", "http://h:80:90/", "http://h:8%30/", "http://h:1a/", "http://h:-1/",
        // Percent-escapes.
        "a:%zz", "a:b%2", "a:%", "a:%41%4a%4A", "a:b?%", "a:b#%2", "a:b#%2F", "http://u%zz@h/", "http://u%41@h/",
        // Dot segments and empty segments (kept as written: parsing does not remove them).
        "a:/./../", "http://a/b/c/./../../g", "../a", "./a:b", ".", "..", "/", "a:", "a:/", "a:b/", "http://a//b", "http://a/", "http://a",
        // Schemes, relative references and the colon of a first segment.
        "", "1a:b", "+a:b", ":a", "a:b:c", "x:1:2@h", "a+b-c.d:x", "-a:b", "a/b:c", "?q", "#f", "a:?#", "a:b?c?d/e",
        // Characters the grammar leaves out, in each component.
        "http://h/a b", "http://h/a\u{7F}", "http://h/\u{0}", "http://h/é", "http://h/a\"b", "http://h/<>", "http://h/{}", "http://h/a|b",
        "http://h/a^b", "http://h/a`b", "http://h/a\\b", "a:b#c#d", "http://h/?a[b]", "http://h/#a]", "http://h w/", "ht tp://h/",
        "http://u\"@h/", "a:b#c d",
        // From RFC 3986 section 1.1.2.
        "ftp://ftp.is.co.za/rfc/rfc1808.txt", "http://www.ietf.org/rfc/rfc2396.txt", "ldap://[2001:db8::7]/c=GB?objectClass?one",
        "mailto:John.Doe@example.com", "news:comp.infosystems.www.servers.unix", "tel:+1-816-555-1212", "telnet://192.0.2.16:80/",
        "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
    ]

    func expectAgreement(_ input: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let verdict = URIParserOracle.compare(input)
        #expect(verdict == .agree, "\(input.debugDescription): \(verdict)", sourceLocation: sourceLocation)
    }

    @Test func benchmarkCorpusAgrees() {
        let corpus = URLCorpus.generate(count: 20_000, seed: 0xC0FFEE)  // the seed of courier-bench url
        var disagreements: [String] = []
        for url in corpus {
            let verdict = URIParserOracle.compare(url)
            if verdict != .agree { disagreements.append("\(url.debugDescription): \(verdict)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(corpus.count) differ, e.g. \(disagreements.prefix(3))")
    }

    @Test(arguments: edgeCases) func edgeCaseAgrees(_ input: String) {
        expectAgreement(input)
    }

    /// Every single-byte change of the edge cases (a small deterministic differential fuzz): no
    /// disagreement beyond the listed differences.
    @Test func singleByteMutationsAgree() {
        let replacements: [UInt8] = Array("%[]@:#?/.0fvZ ".utf8) + [0x00, 0x7F, 0xC3]
        var disagreements: [String] = []
        var compared = 0
        for text in Self.edgeCases {
            let bytes = Array(text.utf8)
            for index in bytes.indices {
                for byte in replacements where byte != bytes[index] {
                    var mutated = bytes
                    mutated[index] = byte
                    if case .disagree(let what) = mutated.withUnsafeBufferPointer({ URIParserOracle.compare($0) }) {
                        disagreements.append(what)
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 10_000)
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared) differ, e.g. \(disagreements.prefix(3))")
    }

    @Test func portAboveTheRangeIsTheListedDifference() {
        for input in ["http://h:65536/", "http://h:99999/x?y#z", "http://u@[::1]:123456789012345678901234567890/", "http://h:00065536"] {
            #expect(URIParserOracle.compare(input) == .explained(.portAbove65535), "\(input)")
        }
        // The explanation holds only when the rest agrees: both refuse these for another reason.
        for input in ["http://h:65536/a b", "http://h:70000/%zz", "http://[::1:65536/"] {
            #expect(URIParserOracle.compare(input) == .agree, "\(input)")
        }
    }

    @Test func inputOverTheLimitIsTheListedDifference() {
        let long = "http://h/" + String(repeating: "a/", count: 40 * 1024)
        #expect(URIParserOracle.compare(long) == .explained(.longerThanLimit))
        #expect(URIParserOracle.compare(long + " ") == .agree)
    }

    @Test func portNumberIsTheDecimalValueOfItsText() throws {
        #expect(try URIReference("http://h:00080/").port == 80)
        #expect(try URIReference("http://h:/").port == nil)
        expectAgreement("http://h:00080/")
    }

    /// The table of docs/url-format.md lists exactly the differences this test accepts.
    @Test func documentedDifferencesAreTheListedOnes() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/url-format.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## CourierURL and liburiparser\n").dropFirst().first)
        let rows = section.components(separatedBy: "\n## ")[0].split(separator: "\n")
            .filter { $0.hasPrefix("| ") && !$0.hasPrefix("| difference") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(rows.map { $0[0] } == KnownDifference.allCases.map(\.rawValue))
        for (row, difference) in zip(rows, KnownDifference.allCases) where row.count >= 5 {
            #expect(row[1] == (difference.changesVerdict ? "verdict" : "reading"), "\(difference)")
            #expect(row[2] == difference.courierURL, "\(difference)")
            #expect(row[3] == difference.uriparser, "\(difference)")
            #expect(row[4] == difference.reason, "\(difference)")
        }
    }
}
