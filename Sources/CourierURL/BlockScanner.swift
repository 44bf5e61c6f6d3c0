/// Block-at-a-time scanning of the path, query and fragment: 16 bytes are classified at once with
/// vector compares into bitmasks ("stops here", "'?' here"), and the first stop is found with a
/// trailing-zero count, so the length of a span costs no data-dependent branch per byte or per
/// escape (the scalar scanners mispredict where each variable-length piece ends).
///
/// A stop is a byte outside `pchar / "/" / "?"`, a `#`, or a `%` not followed by two hexadecimal
/// digits. The scanner only finds where a span ends; the caller hands anything but a clean end
/// (the end of the input, or `#` after the path and query) to the scalar parser, which reports
/// the precise error, so error offsets and messages stay exactly those of the scalar parser.
enum BlockScanner {
    /// The offset of the first stop at or after `start` (or `count` when the bytes run clean to
    /// the end), and the offset of the first `?` before it (or -1).
    ///
    /// Reads only `base[start..<count]`: the last bytes are copied into a zero-padded block.
    @inline(__always)
    static func scan(_ base: UnsafeRawPointer, count n: Int, from start: Int) -> (stop: Int, questionMark: Int) {
        var i = start
        var questionMark = -1
        // Whole blocks, with the two bytes after each block in bounds (escape look-ahead).
        while i &+ 18 <= n {
            let (stops, questionFlags) = classifyFlags(base, i)
            if questionMark < 0 {  // the '?' bitmask is gathered only until the first '?'
                let questions = bits(questionFlags)
                if questions != 0, questions.trailingZeroBitCount < stops.trailingZeroBitCount {
                    questionMark = i &+ questions.trailingZeroBitCount
                }
            }
            if stops != 0 { return (i &+ stops.trailingZeroBitCount, questionMark) }
            i &+= 16
        }
        // The last 0…17 bytes, zero-padded: a zero byte is a stop, so the scan ends at `n` at the
        // latest, and an escape cut short by the end is a stop at its '%'.
        var padded = (SIMD16<UInt8>.zero, SIMD16<UInt8>.zero, SIMD16<UInt8>.zero)
        return withUnsafeMutableBytes(of: &padded) { buffer in
            buffer.baseAddress!.copyMemory(from: base + i, byteCount: n &- i)
            let raw = UnsafeRawPointer(buffer.baseAddress!)
            var o = 0
            while true {
                let (stops, questions) = classify(raw, o)
                if questionMark < 0, questions != 0, questions.trailingZeroBitCount < stops.trailingZeroBitCount {
                    questionMark = i &+ o &+ questions.trailingZeroBitCount
                }
                if stops != 0 { return (i &+ o &+ stops.trailingZeroBitCount, questionMark) }
                o &+= 16
            }
        }
    }

    /// Bitmasks (bit k for byte `offset + k`) of the stops and of the `?` in one 16-byte block.
    /// Reads 18 bytes from `offset`.
    ///
    /// Only lane-wise wrapping arithmetic and bit operations are used (they lower to SSE2/NEON
    /// instructions; Swift's SIMD comparison operators do not, today): each test leaves its
    /// answer in bit 7 of every lane.
    @inline(__always)
    static func classify(_ base: UnsafeRawPointer, _ offset: Int) -> (stops: UInt32, questions: UInt32) {
        let v = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
        let next = base.loadUnaligned(fromByteOffset: offset &+ 1, as: SIMD16<UInt8>.self)
        let afterNext = base.loadUnaligned(fromByteOffset: offset &+ 2, as: SIMD16<UInt8>.self)
        var stops = outsideQuery(v)
        stops |= equal(v, 0x25) & ~(hexDigit(next) & hexDigit(afterNext))
        return (bits(stops), bits(equal(v, 0x3F)))
    }

    /// ``classify(_:_:)`` with the `?` left as lane flags, for callers that may not need them.
    @inline(__always)
    static func classifyFlags(_ base: UnsafeRawPointer, _ offset: Int) -> (stops: UInt32, questions: SIMD16<UInt8>) {
        let v = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
        let next = base.loadUnaligned(fromByteOffset: offset &+ 1, as: SIMD16<UInt8>.self)
        let afterNext = base.loadUnaligned(fromByteOffset: offset &+ 2, as: SIMD16<UInt8>.self)
        var stops = outsideQuery(v)
        stops |= equal(v, 0x25) & ~(hexDigit(next) & hexDigit(afterNext))
        return (bits(stops), equal(v, 0x3F))
    }

    /// Bit 7 of each lane: whether the byte is outside `pchar / "/" / "?"` (`%` counts as inside;
    /// `#` as outside): non-ASCII, controls and space (below 0x21), DEL, and the printable bytes
    /// RFC 3986 leaves out: " # < > [ \ ] ^ ` { | }.
    @inline(__always)
    static func outsideQuery(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let ascii = v & 0x7F
        let folded = (v | 0x20) & 0x7F
        var outside = v | ~atLeast(ascii, 0x21) | equal(v, 0x7F)
        outside |= equal(v & 0xFE, 0x22)                             // " #
        outside |= equal(v & 0xFD, 0x3C)                             // < >
        outside |= atLeast(folded, 0x7B) & ~atLeast(folded, 0x7E)   // [ \ ] { | }
        outside |= equal(v, 0x5E) | equal(v, 0x60)                   // ^ `
        return outside
    }

    /// Where the userinfo-class run from `start` ends (the first byte outside `unreserved /
    /// sub-delims / ":" / "%"`, or `count`), and the first `:` and `%` before it (or -1). Escapes
    /// are not checked here. Reads only `base[start..<count]`.
    @inline(__always)
    static func scanAuthority(_ base: UnsafeRawPointer, count n: Int, from start: Int) -> (stop: Int, colon: Int, percent: Int) {
        var i = start
        var colon = -1
        var percent = -1
        @inline(__always)
        func record(_ blockStart: Int, _ stops: UInt32, _ colons: UInt32, _ percents: UInt32) -> Int? {
            let end = stops.trailingZeroBitCount
            if colon < 0, colons.trailingZeroBitCount < end { colon = blockStart &+ colons.trailingZeroBitCount }
            if percent < 0, percents.trailingZeroBitCount < end { percent = blockStart &+ percents.trailingZeroBitCount }
            return stops != 0 ? blockStart &+ end : nil
        }
        while i &+ 16 <= n {
            let (stops, colons, percents) = classifyAuthority(base, i)
            if let stop = record(i, stops, colons, percents) { return (stop, colon, percent) }
            i &+= 16
        }
        var padded = (SIMD16<UInt8>.zero, SIMD16<UInt8>.zero)
        return withUnsafeMutableBytes(of: &padded) { buffer in
            buffer.baseAddress!.copyMemory(from: base + i, byteCount: n &- i)
            let (stops, colons, percents) = classifyAuthority(UnsafeRawPointer(buffer.baseAddress!), 0)
            return (record(i, stops, colons, percents)!, colon, percent)  // the padding stops
        }
    }

    /// Bitmasks of the bytes outside the userinfo class, of the `:` and of the `%` in one block.
    @inline(__always)
    static func classifyAuthority(_ base: UnsafeRawPointer, _ offset: Int) -> (stops: UInt32, colons: UInt32, percents: UInt32) {
        let v = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
        let stops = outsideQuery(v) | equal(v, 0x2F) | equal(v, 0x3F) | equal(v, 0x40)  // / ? @
        return (bits(stops), bits(equal(v, 0x3A)), bits(equal(v, 0x25)))
    }

    /// Bit 7 of each lane: whether the lane equals `c`.
    @inline(__always)
    static func equal(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> {
        let t = v ^ SIMD16(repeating: c)
        return ~(((t & 0x7F) &+ 0x7F) | t)
    }

    /// Bit 7 of each lane: whether the lane is ≥ `c`, for lanes below 0x80 and `c` in 1…0x80.
    @inline(__always)
    static func atLeast(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> {
        v &+ SIMD16(repeating: 0x80 &- c)
    }

    /// Bit 7 of each lane: whether the lane is an ASCII hexadecimal digit.
    @inline(__always)
    static func hexDigit(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let ascii = v & 0x7F
        let folded = (v | 0x20) & 0x7F
        let digit = atLeast(ascii, 0x30) & ~atLeast(ascii, 0x3A)
        let letter = atLeast(folded, 0x61) & ~atLeast(folded, 0x67)
        return (digit | letter) & ~v
    }

    /// Bit k set when bit 7 of lane k is set (a portable "movemask": per 8-byte half, one
    /// multiply gathers the eight flag bits into the top byte without carries).
    @inline(__always)
    static func bits(_ flags: SIMD16<UInt8>) -> UInt32 {
        let halves = unsafeBitCast(flags, to: SIMD2<UInt64>.self)
        let low = ((halves[0] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
        let high = ((halves[1] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
        return UInt32(truncatingIfNeeded: low | high << 8)
    }
}
