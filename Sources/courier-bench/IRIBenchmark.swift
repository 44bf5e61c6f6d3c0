import CourierIRI
import CourierURL
import Foundation
import URIParserOracle

/// `courier-bench iri`: what the IRI mapping (RFC 3987, `CourierIRI`) costs, against baselines
/// timed in the same run.
///
/// - On `courier-bench url`'s ASCII corpus, `IRI.uri(from:)` against `URIReference(_:)` (parse
///   only): the mapping must add at most 10% (a valid URI takes the parser's fast path, which
///   also counts the bytes outside ASCII, and nothing else runs).
/// - On the same corpus with text outside ASCII in every URL (a query item, in several scripts and
///   an emoji; no host names, whose IDNA is libidn2's cost), the mapping's throughput (at least
///   200 MB/s of IRI text) and its time against two baselines: the parser alone on the URIs the
///   mapping gives (what is left if mapping cost nothing), and Foundation's `URL(string:)` on the
///   IRI text (which percent-encodes it too).
///
/// Rounds are interleaved (each contestant once per round, in turn) and timed on the thread's CPU
/// time, so a burst of load on the shared machine hits all alike. Every figure is given as the
/// median over the rounds with the spread (min–max) of the per-round values.
///
/// `courier-bench iri [COUNT] [--rounds=N] [--ascii-only]`: `--ascii-only` runs the two
/// contestants of the ASCII corpus only, for an instruction count that load does not change:
/// under `valgrind --tool=callgrind`, the inclusive costs of the two closures (`parse` and `map`
/// below) divided by COUNT × N are the instructions per URL of each.
enum IRIBenchmark {
    static func run(arguments: [String]) {
        let count = arguments.first.flatMap(Int.init) ?? 100_000
        let rounds = arguments.first(where: { $0.hasPrefix("--rounds=") }).flatMap { Int($0.dropFirst(9)) } ?? 11
        let asciiOnly = arguments.contains("--ascii-only")
        let ascii = URLCorpus.generate(count: count, seed: 0xC0FFEE)
        let words = ["Café", "例えば", "パス", "Ünïcödé", "😀", "Привет", "値", "naïve", "straße", "Ελληνικά"]
        let international = ascii.enumerated().map { index, url in
            let text = "t=\(words[index % words.count])+\(words[(index / words.count) % words.count])"
            return url.contains("?") ? url.replacingOccurrences(of: "?", with: "?\(text)&", options: [], range: url.range(of: "?")) : url + "?" + text
        }
        let mapped = asciiOnly ? [] : international.map { (try? IRI.uri(from: $0))?.uri.string ?? $0 }
        let asciiBytes = ascii.reduce(0) { $0 + $1.utf8.count }
        let internationalBytes = international.reduce(0) { $0 + $1.utf8.count }
        print("iri: \(count) URLs, ASCII corpus \(asciiBytes) bytes, IRI corpus \(internationalBytes) bytes; \(rounds) interleaved rounds, thread CPU time; median (min–max) over the rounds")

        let parse: (String) -> Int = { (try? URIReference($0)) == nil ? -1 : 0 }
        let map: (String) -> Int = { url in (try? IRI.uri(from: url)).map { $0.uri.string.utf8.count } ?? -1 }
        var contestants = [
            (URLBenchmark.Contestant(name: "URIReference(_:), ASCII corpus", body: parse), ascii, asciiBytes),
            (URLBenchmark.Contestant(name: "IRI.uri(from:), ASCII corpus", body: map), ascii, asciiBytes),
            (URLBenchmark.Contestant(name: "URIReference(_:), IRI corpus mapped", body: parse), mapped, internationalBytes),
            (URLBenchmark.Contestant(name: "IRI.uri(from:), IRI corpus", body: map), international, internationalBytes),
            (URLBenchmark.Contestant(name: "URL(string:), IRI corpus") { URL(string: $0) == nil ? -1 : 0 }, international, internationalBytes),
        ]
        if asciiOnly { contestants.removeLast(3) }
        var seconds = Array(repeating: [Double](), count: contestants.count)
        for _ in 0..<rounds {
            for index in contestants.indices {
                contestants[index].0.runRound(contestants[index].1)
                seconds[index].append(contestants[index].0.lastSeconds)
            }
        }
        for (index, (contestant, _, bytes)) in contestants.enumerated() {
            let throughputs = seconds[index].map { Double(bytes) / $0 / 1e6 }
            print(String(
                format: "iri: %-40@ %7.1f MB/s (%.1f–%.1f)  %6.1f ms/round  refused %d",
                contestant.name as NSString, DropBenchmark.median(throughputs), throughputs.min()!, throughputs.max()!,
                DropBenchmark.median(seconds[index]) * 1000, contestant.refused))
        }
        func ratio(_ a: Int, _ b: Int) -> [Double] { zip(seconds[a], seconds[b]).map { $0 / $1 } }
        func line(_ label: String, _ values: [Double], _ target: String) {
            print(String(format: "iri: %@ = %.3fx (%.3f–%.3f)%@", label, DropBenchmark.median(values), values.min()!, values.max()!, target))
        }
        line("ratio IRI.uri / URIReference, ASCII corpus      ", ratio(1, 0), "  (target <= 1.10x)")
        if asciiOnly { return }
        line("ratio IRI.uri / URIReference of its output, IRIs", ratio(3, 2), "")
        line("ratio IRI.uri / URL(string:), IRI corpus        ", ratio(3, 4), "")
        let throughputs = seconds[3].map { Double(internationalBytes) / $0 / 1e6 }
        print(String(format: "iri: IRI.uri throughput on the IRI corpus = %.0f MB/s (%.0f–%.0f)  (target >= 200 MB/s)",
                     DropBenchmark.median(throughputs), throughputs.min()!, throughputs.max()!))
    }
}
