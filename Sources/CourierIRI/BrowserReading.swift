public import CourierURL

/// How a browser — the WHATWG URL standard — reads a URL Courier hands to the desktop, held to
/// how CourierURL reads it: the same host, port and path, or Courier refuses the URL and says why,
/// or hands on the one form both read the same way and says so.
///
/// Where the two differ for a URL RFC 3986 accepts (every row of ``BrowserDifference/all``,
/// docs/url-format.md "Handing URLs to the desktop"): the browser finds a host where there is no
/// authority or an empty one, reads hosts that end in a number as IPv4 in odd notations, decodes
/// a host's escapes, and takes escaped dots as dot segments. Everything else the standard does
/// differently (backslashes, tab and newline removal, spaces, a second `@`) is refused earlier by
/// the RFC 3986 parser itself.
public enum BrowserReading {
    /// The schemes the WHATWG standard calls special (it parses their authority and path its own
    /// way) and that Courier hands to the desktop. (`file`, special too, is never handed on as a
    /// URL from the command line: a file is opened as a file.)
    public static let schemes: Set<String> = ["http", "https", "ws", "wss", "ftp"]

    /// What to hand on.
    public enum Verdict: Sendable, Hashable {
        /// Both read the same host, port and path: the URL as it is.
        case same
        /// The browser's reading, which CourierURL reads the same way, and the sentence that says
        /// what changed.
        case rewritten(URIReference, note: String)
    }

    /// What the desktop gets for `url`, as `courier open` and a nearby link hand it on: the URI it
    /// means (an IRI mapped, RFC 3987) as a browser reads it the same way, with the sentence
    /// saying what was rewritten, if anything.
    /// - Throws: ``URIError``: the URL is not valid, or a browser would read it otherwise.
    public static func desktopURI(for url: String) throws(URIError) -> (uri: String, note: String?) {
        let reference = try IRI.uri(from: url).uri
        switch try check(reference) {
        case .same: return (reference.string, nil)
        case .rewritten(let rewritten, let note): return (rewritten.string, note)
        }
    }

    /// Checks `uri` (already valid RFC 3986) for the desktop.
    /// - Throws: ``URIError`` whose code names the ``BrowserDifference`` row (`no-authority`,
    ///   `empty-host`, `numeric-host`, `escaped-host`, `ipvfuture-host`, `invalid-a-label`,
    ///   `escaped-dot-segment`), at the offset of what differs, with the browser's reading.
    public static func check(_ uri: URIReference) throws(URIError) -> Verdict {
        guard let scheme = uri.scheme, schemes.contains(scheme) else { return .same }
        let afterScheme = uri.rawScheme!.utf8.count + 1
        guard let host = uri.host, let hostOffset = uri.offset(of: .host) else {
            let rest = uri.string.utf8.dropFirst(afterScheme)
            let shown = String(decoding: rest.prefix(60), as: UTF8.self)
            throw URIError(
                code: .browserNoAuthority, offset: afterScheme, component: .path,
                message: "\(scheme): without '//' has no host for Courier, but a browser reads '\(shown)' as the authority and finds a host in it",
                advice: "write the host after //, e.g. \(scheme)://example.com/")
        }
        guard !host.isEmpty else {
            throw URIError(
                code: .browserEmptyHost, offset: hostOffset, component: .host,
                message: "the host is empty: Courier reads no host, but a browser skips the slashes and takes the next segment as the host",
                advice: "write the host after //, e.g. \(scheme)://example.com/")
        }
        switch uri.hostKind {
        case .ipvFuture?:
            throw URIError(
                code: .browserFutureIPLiteral, offset: hostOffset, component: .host,
                message: "the host \(host) is an IPvFuture literal, which a browser does not accept",
                advice: "write an IPv6 address or a host name")
        case .regName?:
            try checkName(String(host), at: hostOffset)
        default:
            break
        }
        return try checkPath(uri)
    }

    /// A registered name, as a browser reads it: no escapes, not ending in a number (unless
    /// RFC 3986 reads it as the same IPv4 address, which makes it an `.ipv4` host), A-labels that
    /// decode.
    static func checkName(_ host: String, at offset: Int) throws(URIError) {
        if let percent = host.utf8.firstIndex(of: UInt8(ascii: "%")) {
            let at = offset + host.utf8.distance(from: host.utf8.startIndex, to: percent)
            throw URIError(
                code: .browserEscapedHost, offset: at, component: .host,
                message: "the host \(host) holds a percent escape at offset \(at): a browser decodes it and looks up another name than Courier checked",
                advice: "write the host name without escapes")
        }
        if endsInANumber(host) {
            let reading = ipv4Reading(host).map { "the IPv4 address \($0)" } ?? "an IPv4 address it refuses"
            throw URIError(
                code: .browserNumericHost, offset: offset, component: .host,
                message: "the host \(host) ends in a number: Courier reads a name, a browser reads \(reading)",
                advice: "write an IPv4 address as four decimal numbers (e.g. 127.0.0.1), or the host name")
        }
        if host.lowercased().contains("xn--") {
            let ascii = try? DomainName.toASCII(host)
            guard ascii == host.lowercased() else {
                throw URIError(
                    code: .browserInvalidALabel, offset: offset, component: .host,
                    message: "the host \(host) has an xn-- label that IDNA does not decode to a valid name: a browser refuses it or reads \(ascii ?? "another name")",
                    advice: "write the name in Unicode or check its ASCII (xn--) form")
            }
        }
    }

    /// The path, as a browser reads it: escaped dots are dot segments for it (refused), dot
    /// segments are removed (handed on removed, which RFC 3986 reads the same).
    static func checkPath(_ uri: URIReference) throws(URIError) -> Verdict {
        let path = uri.path
        let pathOffset = uri.offset(of: .path)!
        var hasDotSegment = false
        var segmentStart = 0
        let bytes = Array(path.utf8)
        for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
            let segment = String(decoding: bytes[segmentStart..<end], as: UTF8.self).lowercased()
            switch segment {
            case ".", "..":
                hasDotSegment = true
            case "%2e", ".%2e", "%2e.", "%2e%2e":
                let at = pathOffset + segmentStart
                throw URIError(
                    code: .browserEscapedDotSegment, offset: at, component: .path,
                    message: "the path segment '\(String(decoding: bytes[segmentStart..<end], as: UTF8.self))' at offset \(at) is a dot segment to a browser (it goes up a level) and a name to Courier",
                    advice: segment.count > 4 ? "write .. if you mean the parent, or name the segment otherwise" : "write . or leave the segment out")
            default:
                break
            }
            segmentStart = end + 1
        }
        guard hasDotSegment else { return .same }
        let resolved = URIReference.removeDotSegments(path)
        let string = uri.string
        let utf8 = string.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: pathOffset)
        let end = utf8.index(start, offsetBy: bytes.count)
        let rewritten = String(string[..<start]) + resolved + String(string[end...])
        guard let reference = try? URIReference(rewritten) else { return .same }
        return .rewritten(reference, note: "a browser reads the path \(path) as \(resolved.isEmpty ? "/" : resolved): handed on as \(rewritten)")
    }

    /// The WHATWG "ends in a number" test: the last label (after one trailing dot) is all digits
    /// or `0x` and hexadecimal digits.
    static func endsInANumber(_ host: String) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "", labels.count > 1 { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return true }
        return ipv4Number(last) != nil
    }

    /// The WHATWG IPv4 parser: up to four parts, each decimal, octal (leading 0) or hexadecimal
    /// (0x); all but the last below 256, the last filling the remaining bytes. The dotted-decimal
    /// address, or nil when the browser refuses the host.
    static func ipv4Reading(_ host: String) -> String? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let last = numbers.last!
        guard last < UInt64(1) << (8 * (5 - numbers.count)) else { return nil }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * (3 - index)) }
        return (0..<4).map { String((address >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    /// One part of a WHATWG IPv4 address, or nil when it is not a number.
    static func ipv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1, digits.hasPrefix("0") {
            radix = 8
            digits = digits.dropFirst()
        }
        var value: UInt64 = 0
        for byte in digits.utf8 {
            guard let digit = IRI.hexValue(byte), UInt64(digit) < radix else { return nil }
            value = min(value * radix + UInt64(digit), UInt64(1) << 40)
        }
        return value
    }
}

extension URIError.Code {
    /// A special-scheme URL without `//`: a browser finds a host, Courier none.
    public static let browserNoAuthority = URIError.Code(rawValue: "no-authority")
    /// `http:///x`: a browser takes `x` as the host.
    public static let browserEmptyHost = URIError.Code(rawValue: "empty-host")
    /// A host ending in a number that RFC 3986 reads as a name and a browser as IPv4.
    public static let browserNumericHost = URIError.Code(rawValue: "numeric-host")
    /// A percent escape in a host, which a browser decodes.
    public static let browserEscapedHost = URIError.Code(rawValue: "escaped-host")
    /// `[v1.x]`, which a browser refuses.
    public static let browserFutureIPLiteral = URIError.Code(rawValue: "ipvfuture-host")
    /// An `xn--` label that does not decode to the same valid name.
    public static let browserInvalidALabel = URIError.Code(rawValue: "invalid-a-label")
    /// `%2e`, `.%2e`, `%2e.`, `%2e%2e` segments: dot segments to a browser.
    public static let browserEscapedDotSegment = URIError.Code(rawValue: "escaped-dot-segment")
}
