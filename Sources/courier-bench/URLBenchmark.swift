import CourierURL
import Foundation

/// `courier-bench url`: the CourierURL parser against Foundation's `URLComponents(string:)` and
/// `URL(string:)` on the same generated corpus, in the same run.
///
/// Each contestant constructs its value from every URL and reads every component (scheme, user,
/// password, host, port, path, query, fragment — raw/percent-encoded forms where Foundation
/// offers them), so lazy parsing cannot skip work. Each line names the reading API it uses:
/// CourierURL's borrowed UTF-8 views (`withRawComponents`, the API for hot paths: no refcounting)
/// and its `Substring` properties (`r.host`: one retain/release each); Foundation's `String`
/// properties. Every component is consumed as its UTF-8 length. Time is the benchmarking thread's CPU time, so
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
                var n = r.scheme?.utf8.count ?? 0
                n &+= r.user?.utf8.count ?? 0
                n &+= r.password?.utf8.count ?? 0
                n &+= r.host?.utf8.count ?? 0
                n &+= r.port ?? 0
                n &+= r.path.utf8.count
                n &+= r.query?.utf8.count ?? 0
                n &+= r.fragment?.utf8.count ?? 0
                return n
            },
            Contestant(name: "CourierURL, UTF-8 views (r.withRawComponents)") { url in
                guard let r = try? URIReference(url) else { return -1 }
                return r.withRawComponents { c in
                    var n = c.scheme?.count ?? 0
                    n &+= c.user?.count ?? 0
                    n &+= c.password?.count ?? 0
                    n &+= c.host?.count ?? 0
                    n &+= r.port ?? 0
                    n &+= c.path.count
                    n &+= c.query?.count ?? 0
                    n &+= c.fragment?.count ?? 0
                    return n
                }
            },
            Contestant(name: "URLComponents(string:), String (.percentEncodedHost)") { url in
                guard let c = URLComponents(string: url) else { return -1 }
                var n = c.scheme?.utf8.count ?? 0
                n &+= c.percentEncodedUser?.utf8.count ?? 0
                n &+= c.percentEncodedPassword?.utf8.count ?? 0
                n &+= c.percentEncodedHost?.utf8.count ?? 0
                n &+= c.port ?? 0
                n &+= c.percentEncodedPath.utf8.count
                n &+= c.percentEncodedQuery?.utf8.count ?? 0
                n &+= c.percentEncodedFragment?.utf8.count ?? 0
                return n
            },
            Contestant(name: "URL(string:), String (.host(percentEncoded: true))") { url in
                guard let u = URL(string: url) else { return -1 }
                var n = u.scheme?.utf8.count ?? 0
                n &+= u.user(percentEncoded: true)?.utf8.count ?? 0
                n &+= u.password(percentEncoded: true)?.utf8.count ?? 0
                n &+= u.host(percentEncoded: true)?.utf8.count ?? 0
                n &+= u.port ?? 0
                n &+= u.path(percentEncoded: true).utf8.count
                n &+= u.query(percentEncoded: true)?.utf8.count ?? 0
                n &+= u.fragment(percentEncoded: true)?.utf8.count ?? 0
                return n
            },
        ]
        let parseOnly = Contestant(name: "CourierURL parse only") { (try? URIReference($0)) == nil ? -1 : 0 }
        if arguments.contains("--only-courier") { contestants = [contestants[0], contestants[1], parseOnly] }  // for profiling
        if arguments.contains("--parse-only") { contestants = [parseOnly] }
        if arguments.contains("--views-only") { contestants = [contestants[1]] }
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
        if contestants.count == 4 {
            let ours = contestants[0].bestSeconds, views = contestants[1].bestSeconds
            let components = contestants[2].bestSeconds, url = contestants[3].bestSeconds
            print(String(format: "url: ratio CourierURL (UTF-8 views) / URLComponents = %.1fx (target >= 10x)", components / views))
            print(String(format: "url: ratio CourierURL (UTF-8 views) / URL           = %.1fx", url / views))
            print(String(format: "url: ratio CourierURL (Substring)  / URLComponents = %.1fx", components / ours))
            print(String(format: "url: ratio CourierURL (Substring)  / URL           = %.1fx", url / ours))
        }
    }

    /// CPU time consumed by the calling thread: time the thread spends descheduled (other jobs on
    /// a shared machine) is not counted, so the figures and ratios hold under load.
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
            checksum = sum
            refused = refusedCount
        }
    }
}

/// A seeded generator of varied, valid RFC 3986 URLs: queries, fragments, escapes, userinfo,
/// ports, IPv4/IPv6 hosts, long paths.
enum URLCorpus {
    static func generate(count: Int, seed: UInt64) -> [String] {
        var g = SplitMix64(state: seed)
        var corpus: [String] = []
        corpus.reserveCapacity(count)
        for _ in 0..<count { corpus.append(one(&g)) }
        return corpus
    }

    static let schemes = ["http", "https", "todolist", "ftp", "x-callback-url", "coap+tcp", "web3", "HTTPS"]
    static let words = ["acme", "www", "docs", "api", "report", "Quarterly", "index", "files", "user", "v2", "a", "data-set", "x_y", "~me"]
    static let escapes = ["%20", "%C3%A9", "%2F", "%E6%97%A5", "%25", "%F0%9F%93%85", "%3D"]
    static let pcharExtras = ["!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@", "-", ".", "_", "~"]

    static func segment(_ g: inout SplitMix64, extras: Bool = true) -> String {
        var s = ""
        let parts = Int.random(in: 1...3, using: &g)
        for _ in 0..<parts {
            switch Int.random(in: 0..<10, using: &g) {
            case 0..<6: s += words.randomElement(using: &g)!
            case 6..<8: s += escapes.randomElement(using: &g)!
            case 8: s += extras ? pcharExtras.randomElement(using: &g)! : "-"
            default: s += String(Int.random(in: 0...99999, using: &g))
            }
        }
        return s
    }

    static func one(_ g: inout SplitMix64) -> String {
        var s = schemes.randomElement(using: &g)! + ":"
        if Int.random(in: 0..<10, using: &g) < 9 {
            s += "//"
            if Int.random(in: 0..<5, using: &g) == 0 {
                s += segment(&g, extras: false)
                if Bool.random(using: &g) { s += ":" + segment(&g, extras: false) }
                s += "@"
            }
            switch Int.random(in: 0..<10, using: &g) {
            case 0..<6: s += (0..<Int.random(in: 2...4, using: &g)).map { _ in words.randomElement(using: &g)!.filter { $0 != "~" } }.joined(separator: ".")
            case 6..<8: s += "192.0.\(Int.random(in: 0...255, using: &g)).\(Int.random(in: 0...255, using: &g))"
            default:
                s += ["[2001:db8::\(String(Int.random(in: 1...0xffff, using: &g), radix: 16))]", "[::1]",
                      "[fe80::1:2:3:4]", "[2001:db8:85a3:0:0:8a2e:370:7334]", "[::ffff:192.0.2.1]"].randomElement(using: &g)!
            }
            if Int.random(in: 0..<10, using: &g) < 3 { s += ":\(Int.random(in: 1...65535, using: &g))" }
        }
        let segments = Int.random(in: 0..<10, using: &g) == 0 ? Int.random(in: 10...40, using: &g) : Int.random(in: 0...5, using: &g)
        for k in 0..<segments {
            if k > 0 || s.hasSuffix("//") == false { s += "/" }
            s += segment(&g)
        }
        if Int.random(in: 0..<10, using: &g) < 6 {
            s += "?"
            s += (0..<Int.random(in: 1...5, using: &g)).map { _ in
                words.randomElement(using: &g)! + "=" + segment(&g, extras: false) + (Bool.random(using: &g) ? "+x/y?z" : "")
            }.joined(separator: "&")
        }
        if Int.random(in: 0..<10, using: &g) < 4 {
            s += "#" + segment(&g) + (Bool.random(using: &g) ? "/" + segment(&g) : "")
        }
        return s
    }
}

/// SplitMix64, so the corpus is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
