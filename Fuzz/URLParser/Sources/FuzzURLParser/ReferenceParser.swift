/// A slow, straightforward RFC 3986 reader used as the fuzzer's oracle: it splits with the regular
/// expression of appendix B, then checks each component against the grammar character by
/// character. The fast parser must agree with it on validity and on every component.
struct ReferenceParser {
    struct Components: Equatable {
        var scheme: String?
        var userinfo: String?
        var host: String?
        var port: String?
        var path: String
        var query: String?
        var fragment: String?
    }

    static let alpha = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    static let digit = Set("0123456789")
    static let hex = Set("0123456789ABCDEFabcdef")
    static let unreserved = alpha.union(digit).union("-._~")
    static let subDelims = Set("!$&'()*+,;=")
    static let pchar = unreserved.union(subDelims).union(":@")

    /// Whether `text` is made of `allowed` characters and valid `%XX` escapes.
    static func valid(_ text: Substring, _ allowed: Set<Character>) -> Bool {
        var chars = Array(text)[...]
        while let c = chars.first {
            if c == "%" {
                guard chars.count >= 3, hex.contains(chars[chars.startIndex + 1]), hex.contains(chars[chars.startIndex + 2]) else { return false }
                chars = chars.dropFirst(3)
            } else {
                guard allowed.contains(c) else { return false }
                chars = chars.dropFirst()
            }
        }
        return true
    }

    static func ipv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(digit.contains)
                && (part.count == 1 || part.first != "0") && Int(part)! <= 255
        }
    }

    static func ipv6(_ text: Substring) -> Bool {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        func groups(_ half: String) -> [Substring]? {
            half.isEmpty ? [] : half.split(separator: ":", omittingEmptySubsequences: false)
        }
        guard let head = groups(halves[0]), let tail = halves.count == 2 ? groups(halves[1]) : [] else { return false }
        var all = head + tail
        var count = 0
        if let last = all.last, last.contains(".") {
            guard ipv4(last) else { return false }
            count += 2
            all.removeLast()
        }
        for group in all {
            guard (1...4).contains(group.count), group.allSatisfy(hex.contains) else { return false }
            count += 1
        }
        return halves.count == 2 ? count <= 7 : count == 8
    }

    static func ipFuture(_ text: Substring) -> Bool {
        guard let v = text.first, v == "v" || v == "V", let dot = text.firstIndex(of: ".") else { return false }
        let version = text[text.index(after: text.startIndex)..<dot]
        let rest = text[text.index(after: dot)...]
        return !version.isEmpty && version.allSatisfy(hex.contains) && !rest.isEmpty
            && rest.allSatisfy(unreserved.union(subDelims).union(":").contains)
    }

    /// The components, or nil when `text` is not a URI reference.
    static func parse(_ text: String) -> Components? {
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        var rest = Substring(text)
        var result = Components(path: "")
        // ^(([^:/?#]+):)?
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains(where: { "/?#".contains($0) }) {
            let scheme = rest[..<colon]
            guard let first = scheme.first, alpha.contains(first),
                scheme.allSatisfy(alpha.union(digit).union("+-.").contains) else { return nil }
            result.scheme = String(scheme)
            rest = rest[rest.index(after: colon)...]
        }
        // (//([^/?#]*))?
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
            var authority = rest[..<end]
            rest = rest[end...]
            if let at = authority.firstIndex(of: "@") {
                let userinfo = authority[..<at]
                guard valid(userinfo, unreserved.union(subDelims).union(":")) else { return nil }
                result.userinfo = String(userinfo)
                authority = authority[authority.index(after: at)...]
            }
            if authority.first == "[" {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                let literal = authority[authority.index(after: authority.startIndex)..<close]
                guard ipv6(literal) || ipFuture(literal) else { return nil }
                result.host = String(authority[...close])
                authority = authority[authority.index(after: close)...]
                if !authority.isEmpty {
                    guard authority.first == ":" else { return nil }
                    result.port = String(authority.dropFirst())
                }
            } else {
                let colon = authority.firstIndex(of: ":") ?? authority.endIndex
                guard valid(authority[..<colon], unreserved.union(subDelims)) else { return nil }
                result.host = String(authority[..<colon])
                if colon < authority.endIndex { result.port = String(authority[authority.index(after: colon)...]) }
            }
            if let port = result.port {
                let significant = port.drop(while: { $0 == "0" })
                guard port.allSatisfy(digit.contains), significant.count <= 5, (Int(significant) ?? 0) <= 65535 else { return nil }
            }
        }
        // ([^?#]*)(\?([^#]*))?(#(.*))?
        let pathEnd = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let path = rest[..<pathEnd]
        guard valid(path, pchar.union("/")) else { return nil }
        if result.scheme == nil, result.host == nil, let firstSegment = path.split(separator: "/", omittingEmptySubsequences: false).first,
            firstSegment.contains(":") { return nil }
        result.path = String(path)
        rest = rest[pathEnd...]
        if rest.first == "?" {
            let end = rest.firstIndex(of: "#") ?? rest.endIndex
            let query = rest[rest.index(after: rest.startIndex)..<end]
            guard valid(query, pchar.union("/?")) else { return nil }
            result.query = String(query)
            rest = rest[end...]
        }
        if rest.first == "#" {
            let fragment = rest.dropFirst()
            guard valid(fragment, pchar.union("/?")) else { return nil }
            result.fragment = String(fragment)
        }
        return result
    }
}
