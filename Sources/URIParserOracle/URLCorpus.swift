/// A seeded generator of varied, valid RFC 3986 URLs: queries, fragments, escapes, userinfo,
/// ports, IPv4/IPv6 hosts, long paths: the corpus of `courier-bench url` and of the uriparser
/// oracle test.
public enum URLCorpus {
    /// Inputs CourierURL and uriparser must read alike (URIParserOracleTests), and that the IRI
    /// tests run against a browser's parser: each production of RFC 3986 that is easy to get wrong.
    public static let edgeCases = [
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
