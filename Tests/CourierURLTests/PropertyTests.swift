@testable import CourierURL
import Testing
import URIParserOracle

/// Properties over seeded random inputs: they replay exactly, so a failure is reproducible.
struct PropertyTests {
    static let pieces = [
        "a", "Z", "0", "9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@",
        "%20", "%C3%A9", "%2F", "%25", "%7e", "..", "/",
    ]

    func random(_ g: inout SplitMix64, count: ClosedRange<Int>, excluding: Set<String> = []) -> String {
        let allowed = Self.pieces.filter { !excluding.contains($0) }
        return (0..<Int.random(in: count, using: &g)).map { _ in allowed.randomElement(using: &g)! }.joined()
    }

    /// Components → string → parse gives the same components; serializing gives the same string;
    /// parsing that again gives an equal value.
    @Test func parseSerializeParseIsTheIdentity() throws {
        var g = SplitMix64(state: 0x3986)
        for _ in 0..<3000 {
            let scheme: String? = Bool.random(using: &g) ? ["todolist", "http", "x-callback-url", "a+b.c-d", "web3"].randomElement(using: &g)! : nil
            let hasAuthority = Int.random(in: 0..<4, using: &g) > 0
            let userinfo = hasAuthority && Bool.random(using: &g) ? random(&g, count: 0...6, excluding: ["@", "/", ".."]) : nil
            let host: String? = hasAuthority
                ? [random(&g, count: 0...5, excluding: [":", "@", "/", ".."]), "[::1]", "[2001:db8::7]", "192.0.2.1", "[v7.a:b]"].randomElement(using: &g)!
                : nil
            let port: Int? = hasAuthority && Bool.random(using: &g) ? Int.random(in: 0...65535, using: &g) : nil
            var path = random(&g, count: 0...8)
            if hasAuthority, !path.isEmpty { path = "/" + path }
            if !hasAuthority, path.hasPrefix("//") { path = "/." + path }
            if scheme == nil, !hasAuthority, let firstSegment = path.split(separator: "/", omittingEmptySubsequences: false).first,
                firstSegment.contains(":") {
                path = "./" + path
            }
            let query = Bool.random(using: &g) ? random(&g, count: 0...8) + "?/" : nil
            let fragment = Bool.random(using: &g) ? random(&g, count: 0...8) : nil

            let built = try URIReference(
                scheme: scheme, userinfo: userinfo, host: host, port: port, path: path, query: query, fragment: fragment)
            #expect(built.rawScheme.map(String.init) == scheme)
            #expect(built.userinfo.map(String.init) == userinfo)
            #expect(built.host.map(String.init) == host)
            #expect(built.port == port)
            #expect(built.path == path[...])
            #expect(built.query.map(String.init) == query)
            #expect(built.fragment.map(String.init) == fragment)

            let serialized = built.recomposed()
            #expect(serialized == built.string)
            let reparsed = try URIReference(serialized)
            #expect(reparsed == built)
            for component in URIComponent.allCases {
                #expect(reparsed.raw(component) == built.raw(component))
            }
            // Normalization is idempotent.
            #expect(built.normalized().normalized() == built.normalized())
        }
    }

    /// Percent-decoding an encoding gives the text back, for any Unicode text and every set.
    @Test func percentDecodingInvertsEncoding() throws {
        var g = SplitMix64(state: 0xE5C)
        let scalars: [Character] = Array("az AZ09-._~!$&'()*+,;=:@/?#[]%\"<>\\^`{|}\t\n") + ["\u{0}", "é", "日", "📅", "\u{7F}", "\u{A0}", "\u{FFFD}"]
        let sets: [PercentEncoding.AllowedCharacters] = [.unreserved, .path, .pathSegment, .query, .queryItem, .fragment, .userinfo, .host]
        for _ in 0..<3000 {
            let text = String((0..<Int.random(in: 0...16, using: &g)).map { _ in scalars.randomElement(using: &g)! })
            for set in sets {
                let encoded = PercentEncoding.encode(text, allowing: set)
                #expect(encoded.utf8.allSatisfy { set.contains($0) || $0 == UInt8(ascii: "%") || CharacterClass.isDigit($0) || CharacterClass.isAlpha($0) })
                #expect(try PercentEncoding.decode(encoded) == text)
            }
        }
    }

    /// Random bytes: the parser either refuses them (with an offset inside the input) or accepts
    /// only grammar bytes, and never crashes.
    @Test func arbitraryBytesAreRefusedOrParsedConsistently() {
        var g = SplitMix64(state: 0xF022)
        let alphabet = Array("ab:/?#[]@%2F!$&'()*+,;=.-_~ \u{0}é19vV".utf8)
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...24, using: &g)).map { _ in alphabet.randomElement(using: &g)! }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let uri = try URIReference(text)
                #expect(uri.recomposed() == text)
                #expect(!text.utf8.contains { $0 <= 0x20 || $0 >= 0x7F })
            } catch {
                #expect(error.offset >= 0 && error.offset <= text.utf8.count)
                #expect(!error.message.isEmpty && !error.advice.isEmpty)
            }
        }
    }

    /// The static table on the hot path is the one computed from the grammar.
    @Test func staticCharacterTableMatchesTheGrammar() {
        let staticBytes = Array(UnsafeBufferPointer(start: CharacterClass.staticTable.utf8Start, count: CharacterClass.staticTable.utf8CodeUnitCount))
        #expect(staticBytes == CharacterClass.table)
    }
}

