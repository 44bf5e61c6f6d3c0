import CourierIRI
import CourierURL
import Foundation
import URIParserOracle

/// `courier-bench iri`: what the IRI mapping (RFC 3987, `CourierIRI`) costs, in the same run as
/// the parser it wraps.
///
/// - On `courier-bench url`'s ASCII corpus, `IRI.uri(from:)` against `URIReference(_:)` (parse
///   only): the mapping must add at most 10% (valid URIs take the parser's fast path and nothing
///   else).
/// - On the same corpus with text outside ASCII in every URL (a query item, in several scripts and
///   an emoji; no host names, whose IDNA is libidn2's cost), the mapping's throughput: at least
///   200 MB/s of IRI text.
///
/// Rounds are interleaved (parser, mapping, mapping of the IRI corpus, …) and timed on the
/// thread's CPU time; the ratio is given for the best rounds and as the spread of the per-round
/// ratios (min–max over the rounds), so one noisy round on the shared machine shows.
enum IRIBenchmark {
    static func run(arguments: [String]) {
        let count = arguments.first.flatMap(Int.init) ?? 100_000
        let rounds = arguments.first(where: { $0.hasPrefix("--rounds=") }).flatMap { Int($0.dropFirst(9)) } ?? 5
        let ascii = URLCorpus.generate(count: count, seed: 0xC0FFEE)
        let words = ["Café", "例えば", "パス", "Ünïcödé", "😀", "Привет", "値", "naïve", "straße", "Ελληνικά"]
        let international = ascii.enumerated().map { index, url in
            let text = "t=\(words[index % words.count])+\(words[(index / words.count) % words.count])"
            return url.contains("?") ? url.replacingOccurrences(of: "?", with: "?\(text)&", options: [], range: url.range(of: "?")) : url + "?" + text
        }
        let asciiBytes = ascii.reduce(0) { $0 + $1.utf8.count }
        let internationalBytes = international.reduce(0) { $0 + $1.utf8.count }
        print("iri: \(count) URLs, ASCII corpus \(asciiBytes) bytes, IRI corpus \(internationalBytes) bytes; \(rounds) interleaved rounds, thread CPU time")

        var parser = URLBenchmark.Contestant(name: "URIReference(_:) parse only, ASCII corpus") { (try? URIReference($0)) == nil ? -1 : 0 }
        var mapping = URLBenchmark.Contestant(name: "IRI.uri(from:), ASCII corpus") { (try? IRI.uri(from: $0)) == nil ? -1 : 0 }
        var mappingIRIs = URLBenchmark.Contestant(name: "IRI.uri(from:), IRI corpus (outside ASCII)") { url in
            (try? IRI.uri(from: url)).map { $0.uri.string.utf8.count } ?? -1
        }
        var ratios: [Double] = []
        var throughputs: [Double] = []
        for _ in 0..<rounds {
            parser.runRound(ascii)
            mapping.runRound(ascii)
            mappingIRIs.runRound(international)
            ratios.append(mapping.lastSeconds / parser.lastSeconds)
            throughputs.append(Double(internationalBytes) / mappingIRIs.lastSeconds / 1e6)
        }
        for (contestant, bytes) in [(parser, asciiBytes), (mapping, asciiBytes), (mappingIRIs, internationalBytes)] {
            print(String(
                format: "iri: %-46@ %7.3f M URLs/s  %7.1f MB/s  (best %.1f ms/round, refused %d)",
                contestant.name as NSString, Double(count) / contestant.bestSeconds / 1e6, Double(bytes) / contestant.bestSeconds / 1e6,
                contestant.bestSeconds * 1000, contestant.refused))
        }
        print(String(format: "iri: ratio IRI.uri / URIReference on ASCII = %.3fx best, per round %.3f–%.3fx (target <= 1.10x)",
                     mapping.bestSeconds / parser.bestSeconds, ratios.min()!, ratios.max()!))
        print(String(format: "iri: IRI.uri throughput on the IRI corpus = %.0f MB/s best, per round %.0f–%.0f MB/s (target >= 200 MB/s)",
                     Double(internationalBytes) / mappingIRIs.bestSeconds / 1e6, throughputs.min()!, throughputs.max()!))
    }
}
