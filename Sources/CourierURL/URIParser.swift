/// The RFC 3986 parser: one forward pass over UTF-8 bytes that validates every byte against the
/// grammar of appendix A and records where each component lies (``URILayout``).
///
/// It never allocates and never repairs: the first byte that breaks the grammar ends the parse
/// with a positioned ``URIError``. Only the authority is looked at twice (to tell a userinfo from
/// a host once the `@` is or is not found), and the authority is short.
enum URIParser {
    private static let slash = UInt8(ascii: "/")
    private static let question = UInt8(ascii: "?")
    private static let hash = UInt8(ascii: "#")
    private static let colon = UInt8(ascii: ":")
    private static let at = UInt8(ascii: "@")
    private static let percent = UInt8(ascii: "%")
    private static let openBracket = UInt8(ascii: "[")
    private static let closeBracket = UInt8(ascii: "]")

    /// Parses `input`, refusing inputs longer than `maximumLength` bytes.
    static func parse(_ input: UnsafeBufferPointer<UInt8>, maximumLength: Int) throws(URIError) -> URILayout {
        if input.count > maximumLength {
            throw URIError(
                code: .tooLong, offset: maximumLength, component: nil,
                message: "the URL is \(input.count) bytes long, over the limit of \(maximumLength) bytes",
                advice: "shorten it, or raise the limit if such URLs are expected")
        }
        let table = UnsafeBufferPointer(start: CharacterClass.staticTable.utf8Start, count: 256)
        return try Scanner(p: input, table: table).parse()
    }

    /// The state of one parse.
    struct Scanner {
        let p: UnsafeBufferPointer<UInt8>
        let table: UnsafeBufferPointer<UInt8>

        @inline(__always)
        func has(_ byte: UInt8, _ flags: UInt8) -> Bool { table[Int(byte)] & flags != 0 }

        /// Checks the `%XX` at `i` and returns the offset after it.
        @inline(__always)
        func escape(at i: Int, in component: URIComponent) throws(URIError) -> Int {
            let n = p.count
            if i + 2 < n, has(p[i + 1], CharacterClass.hexDigit), has(p[i + 2], CharacterClass.hexDigit) {
                return i + 3
            }
            let end = min(n, i + 3)
            let text = Substring(decoding: UnsafeBufferPointer(rebasing: p[i..<end]), as: UTF8.self)
            throw URIError.badEscape(at: i, in: component, text: text)
        }

        /// Scans bytes of class `flags` from `start` without looking at escapes; returns the offset
        /// of the first byte outside the class.
        @inline(__always)
        func scanClass(from start: Int, _ flags: UInt8) -> Int {
            var i = start
            let n = p.count
            while i &+ 8 <= n {
                let t0 = table[Int(p[i])] & table[Int(p[i &+ 1])] & table[Int(p[i &+ 2])] & table[Int(p[i &+ 3])]
                let t1 = table[Int(p[i &+ 4])] & table[Int(p[i &+ 5])] & table[Int(p[i &+ 6])] & table[Int(p[i &+ 7])]
                if t0 & t1 & flags == 0 { break }
                i &+= 8
            }
            while i < n, table[Int(p[i])] & flags != 0 { i &+= 1 }
            return i
        }

        /// The offset of the first `byte` in `start..<end`, or `end`; a word at a time.
        @inline(__always)
        func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
            var i = start
            let raw = UnsafeRawPointer(p.baseAddress!)
            let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern
                let zero = Self.zeroBytes(word)
                if zero != 0 { return i &+ zero.trailingZeroBitCount >> 3 }
                i &+= 8
            }
            while i < end, p[i] != byte { i &+= 1 }
            return i
        }

        /// One word-at-a-time pass over path and query bytes: returns the offset of the first `?`
        /// (or `end`) and checks every escape on the way, naming the path or the query in errors.
        @inline(__always)
        func findQueryCheckingEscapes(from start: Int, to end: Int) throws(URIError) -> Int {
            var i = start
            var questionMark = end
            let raw = UnsafeRawPointer(p.baseAddress!)
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                var marks = Self.zeroBytes(word ^ 0x2525_2525_2525_2525)
                if questionMark == end { marks |= Self.zeroBytes(word ^ 0x3F3F_3F3F_3F3F_3F3F) }
                if marks == 0 {
                    i &+= 8
                    continue
                }
                let k = i &+ marks.trailingZeroBitCount >> 3
                if p[k] == percent {
                    i = try escape(at: k, in: questionMark < k ? .query : .path)
                } else {
                    questionMark = k
                    i = k &+ 1
                }
            }
            while i < end {
                if p[i] == percent {
                    i = try escape(at: i, in: questionMark < i ? .query : .path)
                } else {
                    if p[i] == question, questionMark == end { questionMark = i }
                    i &+= 1
                }
            }
            return questionMark
        }

        /// 0x80 in each byte of the result whose byte in `word` is zero (exact, no borrow).
        @inline(__always)
        static func zeroBytes(_ word: UInt64) -> UInt64 {
            ~(((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | word | 0x7F7F_7F7F_7F7F_7F7F)
        }

        /// Finds each `%` in `start..<end` a word at a time and checks its two hex digits.
        @inline(__always)
        func checkEscapes(from start: Int, to end: Int, in component: URIComponent) throws(URIError) {
            var i = start
            let raw = UnsafeRawPointer(p.baseAddress!)
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x2525_2525_2525_2525
                let found = Self.zeroBytes(word)
                if found == 0 {
                    i &+= 8
                } else {
                    i = try escape(at: i &+ found.trailingZeroBitCount >> 3, in: component)
                }
            }
            while i < end {
                if p[i] == percent { i = try escape(at: i, in: component) } else { i &+= 1 }
            }
        }

        func parse() throws(URIError) -> URILayout {
            var layout = URILayout()
            let n = p.count
            layout.end = Int32(n)
            var i = 0

            // scheme ":" — only when the first byte is a letter and scheme bytes lead to a colon.
            if n > 0 {
                if CharacterClass.isAlpha(p[0]) {
                    var j = 1
                    var lowercaseBits = p[0]
                    while j < n, has(p[j], CharacterClass.scheme) {
                        lowercaseBits &= p[j]  // every scheme byte but an uppercase letter has 0x20 set
                        j &+= 1
                    }
                    if j < n, p[j] == colon {
                        layout.schemeEnd = Int32(j)
                        layout.schemeHasUppercase = lowercaseBits & 0x20 == 0
                        i = j + 1
                    }
                } else if p[0] == colon {
                    throw URIError(
                        code: .emptyScheme, offset: 0, component: .scheme,
                        message: "the URL starts with ':' at offset 0: its scheme is empty",
                        advice: "put the scheme name before the colon, e.g. todolist:")
                }
            }

            // "//" authority
            if i + 1 < n, p[i] == slash, p[i + 1] == slash {
                i = try parseAuthority(from: i + 2, into: &layout)
            }

            // path [ "?" query ] [ "#" fragment ]: one class scan over all three (path and query
            // bytes are query bytes; '?' splits them), then a word-at-a-time search for '?' and
            // the escapes. Errors keep their order: the first offending byte is the one reported.
            layout.pathStart = Int32(i)
            if let base = p.baseAddress {
                // Fast path: 16-byte blocks (``BlockScanner``). Anything but a clean end falls
                // through to the scalar scan below, which reports the error.
                let raw = UnsafeRawPointer(base)
                let (stop, found) = BlockScanner.scan(raw, count: n, from: i)
                if stop == n || p[stop] == hash {
                    let questionMark = found >= 0 ? found : stop
                    layout.pathEnd = Int32(questionMark)
                    if found >= 0 { layout.queryStart = Int32(found + 1) }
                    if layout.schemeEnd < 0, layout.authorityStart < 0 {
                        try checkFirstSegment(from: i, to: questionMark)
                    }
                    if stop == n { return layout }
                    if BlockScanner.scan(raw, count: n, from: stop + 1).stop == n {
                        layout.fragmentStart = Int32(stop + 1)
                        return layout
                    }
                }
                layout.queryStart = -1
            }
            let stop = scanClass(from: i, CharacterClass.queryOrFragment)
            let questionMark = try findQueryCheckingEscapes(from: i, to: stop)
            if stop < n, p[stop] != hash {
                throw URIError.disallowed(p[stop], at: stop, in: questionMark < stop ? .query : .path)
            }
            layout.pathEnd = Int32(questionMark)
            if questionMark < stop {
                layout.queryStart = Int32(questionMark + 1)
            }
            if layout.schemeEnd < 0, layout.authorityStart < 0 {
                try checkFirstSegment(from: Int(layout.pathStart), to: questionMark)
            }

            // "#" fragment
            if stop < n {
                let start = stop + 1
                layout.fragmentStart = Int32(start)
                let end = scanClass(from: start, CharacterClass.queryOrFragment)
                try checkEscapes(from: start, to: end, in: .fragment)
                if end < n {
                    if p[end] == hash {
                        throw URIError(
                            code: .disallowedCharacter, offset: end, component: .fragment,
                            message: "a second '#' at offset \(end) is not allowed in a fragment",
                            advice: "escape it as %23")
                    }
                    throw URIError.disallowed(p[end], at: end, in: .fragment)
                }
            }
            return layout
        }

        /// A relative reference's first segment must not contain ':' (RFC 3986 §4.2).
        func checkFirstSegment(from start: Int, to end: Int) throws(URIError) {
            var j = start
            while j < end, p[j] != slash {
                if p[j] == colon {
                    let isSchemeLike = start < j && !CharacterClass.isAlpha(p[start])
                    throw URIError(
                        code: isSchemeLike ? .invalidScheme : .colonInFirstSegment, offset: j, component: .path,
                        message: isSchemeLike
                            ? "the scheme before ':' at offset \(j) does not start with a letter (a scheme is ALPHA *( ALPHA / DIGIT / \"+\" / \"-\" / \".\" ))"
                            : "':' at offset \(j) in the first segment of a relative path would read as a scheme",
                        advice: isSchemeLike
                            ? "start the scheme with a letter, or write ./ before a relative path"
                            : "write ./ before the path or escape the colon as %3A")
                }
                j += 1
            }
        }

        /// Parses `authority = [ userinfo "@" ] host [ ":" port ]` from `start` (just after `//`)
        /// and returns the offset where the path starts.
        func parseAuthority(from start: Int, into layout: inout URILayout) throws(URIError) -> Int {
            let n = p.count
            layout.authorityStart = Int32(start)
            // Userinfo bytes are host and port bytes plus nothing else but escapes, so one scan
            // covers `[userinfo "@"] host [":" port]` unless there is an '@' or a '['.
            // 16-byte blocks (``BlockScanner``): the run's end, its first ':' and first '%'.
            let raw = UnsafeRawPointer(p.baseAddress!)  // the input holds at least "//"
            var (end, colonAt, percentAt) = BlockScanner.scanAuthority(raw, count: n, from: start)
            var hostStart = start
            if end < n, p[end] == at {
                if percentAt >= 0 { try checkEscapes(from: percentAt, to: end, in: .userinfo) }
                layout.userinfoEnd = Int32(end)
                if colonAt >= 0 { layout.userinfoColon = Int32(colonAt) }
                hostStart = end + 1
                (end, colonAt, percentAt) = BlockScanner.scanAuthority(raw, count: n, from: hostStart)
            }
            layout.hostStart = Int32(hostStart)

            var i: Int
            var portStart: Int
            if hostStart < n, p[hostStart] == openBracket, end == hostStart {
                var j = hostStart + 1
                while j < n, p[j] != closeBracket, p[j] != slash, p[j] != question, p[j] != hash { j += 1 }
                guard j < n, p[j] == closeBracket else {
                    throw URIError(
                        code: .unbalancedBracket, offset: hostStart, component: .host,
                        message: "'[' at offset \(hostStart) opens an IP literal host that is never closed",
                        advice: "close it with ']' or, if the bracket is data, escape it as %5B")
                }
                layout.hostKind = try ipLiteralKind(from: hostStart + 1, to: j)
                i = j + 1
                layout.hostEnd = Int32(i)
                if i < n, p[i] == colon {
                    portStart = i + 1
                    end = portStart
                    while end < n, CharacterClass.isDigit(p[end]) { end += 1 }
                } else {
                    portStart = -1
                    end = i
                }
            } else {
                let hostEnd = colonAt >= 0 ? colonAt : end
                if percentAt >= 0, percentAt < hostEnd { try checkEscapes(from: percentAt, to: hostEnd, in: .host) }
                layout.hostEnd = Int32(hostEnd)
                layout.hostKind = hostEnd > hostStart && CharacterClass.isDigit(p[hostStart])
                    && IPv4.isAddress(p, from: hostStart, to: hostEnd) ? .ipv4 : .regName
                portStart = hostEnd < end ? hostEnd + 1 : -1
            }

            if portStart >= 0 {
                layout.portStart = Int32(portStart)
                var value = 0
                i = portStart
                while i < end, CharacterClass.isDigit(p[i]) {
                    value = min(value * 10 + Int(p[i] &- UInt8(ascii: "0")), 1 << 20)
                    i += 1
                }
                if i < end || (i < n && p[i] != slash && p[i] != question && p[i] != hash && p[i] != at && p[i] != closeBracket) {
                    throw URIError(
                        code: .invalidPort, offset: i, component: .port,
                        message: "\(URIError.name(of: p[i])) at offset \(i) is not allowed in a port: a port is decimal digits",
                        advice: "write the port as digits only (e.g. :8080), or remove it")
                }
                if value > 65535 {
                    throw URIError(
                        code: .invalidPort, offset: portStart, component: .port,
                        message: "the port at offset \(portStart) is above 65535",
                        advice: "use a port between 0 and 65535")
                }
                if i > portStart { layout.port = Int32(value) }
            }
            i = end
            if i < n, p[i] != slash, p[i] != question, p[i] != hash {
                if p[i] == at {
                    throw URIError(
                        code: .disallowedCharacter, offset: i, component: .host,
                        message: "a second '@' at offset \(i) is not allowed in the authority",
                        advice: "escape the '@' that belongs to the user name or password as %40")
                }
                if p[i] == closeBracket {
                    throw URIError(
                        code: .unbalancedBracket, offset: i, component: .host,
                        message: "']' at offset \(i) closes no '['",
                        advice: "enclose an IPv6 host in brackets, e.g. [::1], or escape the bracket as %5D")
                }
                throw URIError.disallowed(p[i], at: i, in: layout.portStart >= 0 ? .port : .host)
            }
            return i
        }

        /// Validates `IPv6address / IPvFuture` between the brackets.
        func ipLiteralKind(from start: Int, to end: Int) throws(URIError) -> URIHostKind {
            if start < end, p[start] | 0x20 == UInt8(ascii: "v") {
                var j = start + 1
                while j < end, has(p[j], CharacterClass.hexDigit) { j += 1 }
                if j > start + 1, j < end, p[j] == UInt8(ascii: ".") {
                    j += 1
                    let bodyStart = j
                    while j < end, p[j] != percent, has(p[j], CharacterClass.userinfo) { j += 1 }
                    if j == end, j > bodyStart { return .ipvFuture }
                }
                throw URIError(
                    code: .invalidIPLiteral, offset: start, component: .host,
                    message: "the IP literal at offset \(start) is not a valid IPvFuture address (v HEXDIG \".\" …)",
                    advice: "write an IPv6 address between the brackets, e.g. [2001:db8::1]")
            }
            if IPv6.isAddress(p, from: start, to: end) { return .ipv6 }
            throw URIError(
                code: .invalidIPLiteral, offset: start, component: .host,
                message: "the IP literal at offset \(start) is not a valid IPv6 address",
                advice: "write eight groups of hexadecimal digits separated by ':' (or use '::' once), e.g. [2001:db8::1]")
        }
    }
}
