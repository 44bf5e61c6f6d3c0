import CourierURL
import Foundation
import Testing
import URIParserOracle

/// liburiparser, a strict RFC 3986 parser in C written by others, as an oracle: on the benchmark's
/// corpus, on hand-picked edge cases and on their single-byte mutations, CourierURL and uriparser
/// give the same verdict and the same components, or a difference listed in ``KnownDifference``
/// (the table in docs/url-format.md) explains the disagreement and they agree on the rest.
@Suite struct URIParserOracleTests {
    static let edgeCases = URLCorpus.edgeCases

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
