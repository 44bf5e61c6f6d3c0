/// Strict RFC 3986 `IPv4address`: four dec-octets, no leading zeros.
enum IPv4 {
    /// One pass, at most three digit tests per octet: a `0` ends its octet (no leading zeros),
    /// any other first digit takes up to two more.
    static func isAddress(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard end &- start >= 7, end &- start <= 15 else { return false }
        var i = start
        var octet = 0
        while true {
            let first = p[i] &- UInt8(ascii: "0")
            guard first < 10 else { return false }
            i &+= 1
            if first != 0 {
                var value = Int(first)
                if i < end, case let second = p[i] &- UInt8(ascii: "0"), second < 10 {
                    value = value &* 10 &+ Int(second)
                    i &+= 1
                    if i < end, case let third = p[i] &- UInt8(ascii: "0"), third < 10 {
                        value = value &* 10 &+ Int(third)
                        i &+= 1
                        if value > 255 { return false }
                    }
                }
            }
            if octet == 3 { return i == end }
            guard i < end, p[i] == UInt8(ascii: ".") else { return false }
            i &+= 1
            octet &+= 1
            guard i < end else { return false }
        }
    }
}

/// Strict RFC 3986 `IPv6address` (no zone identifier).
enum IPv6 {
    static func isAddress(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        let colon = UInt8(ascii: ":")
        var i = start
        var groups = 0
        var compressed = false
        if i < end, p[i] == colon {
            guard i + 1 < end, p[i + 1] == colon else { return false }
            compressed = true
            i += 2
            if i == end { return true }
        }
        while i < end {
            let groupStart = i
            while i < end, i - groupStart < 5, CharacterClass.isHexDigit(p[i]) { i += 1 }
            if i < end, p[i] == UInt8(ascii: ".") {
                // ls32 as an IPv4 address: must be the last part.
                guard IPv4.isAddress(p, from: groupStart, to: end) else { return false }
                groups += 2
                i = end
                break
            }
            let digits = i - groupStart
            if digits == 0 || digits > 4 { return false }
            groups += 1
            if i == end { break }
            guard p[i] == colon else { return false }
            i += 1
            if i < end, p[i] == colon {
                if compressed { return false }
                compressed = true
                i += 1
                if i == end { break }
            } else if i == end {
                return false
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }
}
