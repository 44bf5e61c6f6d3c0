/// Strict RFC 3986 `IPv4address`: four dec-octets, no leading zeros.
enum IPv4 {
    static func isAddress(_ p: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start
        var octets = 0
        while true {
            let octetStart = i
            var value = 0
            while i < end, CharacterClass.isDigit(p[i]), i - octetStart < 3 {
                value = value * 10 + Int(p[i] &- UInt8(ascii: "0"))
                i += 1
            }
            let digits = i - octetStart
            if digits == 0 || value > 255 || (digits > 1 && p[octetStart] == UInt8(ascii: "0")) { return false }
            octets += 1
            if octets == 4 { return i == end }
            if i >= end || p[i] != UInt8(ascii: ".") { return false }
            i += 1
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
