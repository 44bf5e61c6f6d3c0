/// A seeded generator of varied, valid RFC 3986 URLs: queries, fragments, escapes, userinfo,
/// ports, IPv4/IPv6 hosts, long paths: the corpus of `courier-bench url` and of the uriparser
/// oracle test.
public enum URLCorpus {
    public static func generate(count: Int, seed: UInt64) -> [String] {
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
