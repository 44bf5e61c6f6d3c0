import CourierURL
import Foundation
import URIParserOracle

/// `courier-bench url`: the CourierURL parser against Foundation's `URLComponents(string:)` and
/// `URL(string:)` and against liburiparser (C, `uriParseSingleUriExA`) on the same generated
/// corpus, in the same run.
///
/// Each contestant constructs its value from every URL and reads every component (scheme, user,
/// password, host, port, path, query, fragment — raw/percent-encoded forms where Foundation
/// offers them), so lazy parsing cannot skip work. Each line names the reading API it uses:
/// CourierURL's borrowed UTF-8 views (`withRawComponents`, the API for hot paths: no refcounting)
/// and its `Substring` properties (`r.host`: one retain/release each); Foundation's `String`
/// properties; uriparser's text ranges (its path is a list of segments, walked). Every component is
/// consumed as its UTF-8 length (the port as its number), so all contestants print the same checksum. Time is the benchmarking thread's CPU time, so
/// other jobs on a shared machine do not count; rounds are interleaved (ours, URLComponents, URL,
/// ours, …) so all three see the same cache and frequency conditions, and each one's best round
/// is reported.
enum URLBenchmark {
    static func run(arguments: [String]) {
        let count = arguments.first.flatMap(Int.init) ?? 100_000
        let rounds = arguments.first(where: { $0.hasPrefix("--rounds=") }).flatMap { Int($0.dropFirst(9)) } ?? 5
        var corpus = URLCorpus.generate(count: count, seed: 0xC0FFEE)
        if let fixed = arguments.first(where: { $0.hasPrefix("--same=") }) {  // for profiling fixed costs
            corpus = corpus.map { _ in String(fixed.dropFirst(7)) + "" }
        }
        let bytes = corpus.reduce(0) { $0 + $1.utf8.count }
        print("url: \(corpus.count) generated URLs, \(bytes) bytes (mean \(bytes / max(corpus.count, 1)) bytes); best of \(rounds) interleaved rounds, thread CPU time")

        var contestants: [Contestant] = [
            Contestant(name: "CourierURL, Substring properties (r.host)") { url in
                guard let r = try? URIReference(url) else { return -1 }
                return checksum(r.scheme?.utf8.count, r.user?.utf8.count, r.password?.utf8.count, r.host?.utf8.count, r.port,
                                r.path.utf8.count, r.query?.utf8.count, r.fragment?.utf8.count)
            },
            Contestant(name: "CourierURL, UTF-8 views (r.withRawComponents)") { url in
                guard let r = try? URIReference(url) else { return -1 }
                return r.withRawComponents { c in
                    checksum(c.scheme?.count, c.user?.count, c.password?.count, c.host?.count, r.port, c.path.count, c.query?.count, c.fragment?.count)
                }
            },
            Contestant(name: "URLComponents(string:), String (.percentEncodedHost)") { url in
                guard let c = URLComponents(string: url) else { return -1 }
                return checksum(c.scheme?.utf8.count, c.percentEncodedUser?.utf8.count, c.percentEncodedPassword?.utf8.count, c.percentEncodedHost?.utf8.count,
                                c.port, c.percentEncodedPath.utf8.count, c.percentEncodedQuery?.utf8.count, c.percentEncodedFragment?.utf8.count)
            },
            Contestant(name: "URL(string:), String (.host(percentEncoded: true))") { url in
                guard let u = URL(string: url) else { return -1 }
                return checksum(u.scheme?.utf8.count, u.user(percentEncoded: true)?.utf8.count, u.password(percentEncoded: true)?.utf8.count,
                                u.host(percentEncoded: true)?.utf8.count, u.port, u.path(percentEncoded: true).utf8.count,
                                u.query(percentEncoded: true)?.utf8.count, u.fragment(percentEncoded: true)?.utf8.count)
            },
        ]
        contestants.append(Contestant(name: "liburiparser (C), text ranges (uriParseSingleUriExA)") { url in
            var url = url
            return url.withUTF8 { bytes in
                LibURIParser.parse(bytes) { u in
                    var n = u.scheme?.count ?? 0
                    if let userinfo = u.userinfo {  // user and password, as the others read them
                        n &+= userinfo.firstIndex(of: UInt8(ascii: ":")) == nil ? userinfo.count : userinfo.count &- 1
                    }
                    if let host = u.host { n &+= u.hostKind == .ipv6 || u.hostKind == .ipvFuture ? host.count &+ 2 : host.count }
                    if let port = u.port, !port.isEmpty { n &+= port.reduce(0) { $0 &* 10 &+ Int($1 &- 0x30) } }
                    n &+= u.pathByteCount
                    n &+= u.query?.count ?? 0
                    n &+= u.fragment?.count ?? 0
                    return n
                } ?? -1
            }
        })
        let parseOnly = Contestant(name: "CourierURL parse only") { (try? URIReference($0)) == nil ? -1 : 0 }
        if arguments.contains("--only-courier") { contestants = [contestants[0], contestants[1], parseOnly] }  // for profiling
        if arguments.contains("--parse-only") { contestants = [parseOnly] }
        if arguments.contains("--views-only") { contestants = [contestants[1]] }
        if arguments.contains("--uriparser-only") { contestants = [contestants[4]] }
        // Interleaved rounds: a burst of load on the shared machine hits every contestant alike.
        for _ in 0..<rounds {
            for index in contestants.indices { contestants[index].runRound(corpus) }
        }
        for contestant in contestants {
            let seconds = contestant.bestSeconds
            print(String(
                format: "url: %-52@ %7.3f M URLs/s  %7.1f MB/s  (%.1f ms/round, refused %d, checksum %d)",
                contestant.name as NSString, Double(corpus.count) / seconds / 1e6, Double(bytes) / seconds / 1e6,
                seconds * 1000, contestant.refused, contestant.checksum))
        }
        if contestants.count == 5 {
            let ours = contestants[0].bestSeconds, views = contestants[1].bestSeconds
            let components = contestants[2].bestSeconds, url = contestants[3].bestSeconds, uriparser = contestants[4].bestSeconds
            print(String(format: "url: ratio CourierURL (UTF-8 views) / uriparser     = %.1fx (target >= 3x)", uriparser / views))
            print(String(format: "url: CourierURL (UTF-8 views) throughput = %.0f MB/s (target >= 1000 MB/s)", Double(bytes) / views / 1e6))
            print(String(format: "url: ratio CourierURL (UTF-8 views) / URLComponents = %.1fx (target >= 10x)", components / views))
            print(String(format: "url: ratio CourierURL (UTF-8 views) / URL           = %.1fx", url / views))
            print(String(format: "url: ratio CourierURL (Substring)  / URLComponents = %.1fx", components / ours))
            print(String(format: "url: ratio CourierURL (Substring)  / URL           = %.1fx", url / ours))
            print(String(format: "url: ratio CourierURL (Substring)  / uriparser     = %.1fx", uriparser / ours))
        }
    }

    /// CPU time consumed by the calling thread: time the thread spends descheduled (other jobs on
    /// a shared machine) is not counted, so the figures and ratios hold under load.
    /// What every row computes over its own parser's components, so that each touches them all:
    /// their lengths in bytes, and the port, added up (absent ones count 0).
    @inline(__always)
    static func checksum(_ scheme: Int?, _ user: Int?, _ password: Int?, _ host: Int?, _ port: Int?, _ path: Int, _ query: Int?, _ fragment: Int?) -> Int {
        (scheme ?? 0) &+ (user ?? 0) &+ (password ?? 0) &+ (host ?? 0) &+ (port ?? 0) &+ path &+ (query ?? 0) &+ (fragment ?? 0)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// One parser under test: constructs the value and reads every component; -1 when refused.
    struct Contestant {
        let name: String
        let body: (String) -> Int
        var bestSeconds = Double.infinity
        /// The time of the latest round.
        var lastSeconds = Double.infinity
        var checksum = 0
        var refused = 0

        init(name: String, body: @escaping (String) -> Int) {
            self.name = name
            self.body = body
        }

        mutating func runRound(_ corpus: [String]) {
            var sum = 0
            var refusedCount = 0
            let start = URLBenchmark.threadCPUSeconds()
            for url in corpus {
                let n = body(url)
                if n < 0 { refusedCount &+= 1 } else { sum &+= n }
            }
            let seconds = URLBenchmark.threadCPUSeconds() - start
            bestSeconds = min(bestSeconds, seconds)
            lastSeconds = seconds
            checksum = sum
            refused = refusedCount
        }
    }
}
