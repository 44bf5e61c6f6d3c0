@testable import CourierURL
import Testing

/// The vectorized span scanner must agree with the grammar's character table byte for byte, at
/// every position of a block and across the zero-padded tail.
@Suite struct BlockScannerTests {
    /// The scalar definition: where a path/query span starting at 0 stops, and its first '?'.
    static func reference(_ bytes: [UInt8]) -> (stop: Int, questionMark: Int) {
        var questionMark = -1
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%") {
                let valid = i + 2 < bytes.count
                    && CharacterClass.table[Int(bytes[i + 1])] & CharacterClass.hexDigit != 0
                    && CharacterClass.table[Int(bytes[i + 2])] & CharacterClass.hexDigit != 0
                if !valid { return (i, questionMark) }
            } else if CharacterClass.table[Int(byte)] & CharacterClass.queryOrFragment == 0 {
                return (i, questionMark)
            }
            if byte == UInt8(ascii: "?"), questionMark < 0 { questionMark = i }
            i += 1
        }
        return (i, questionMark)
    }

    static func scan(_ bytes: [UInt8]) -> (stop: Int, questionMark: Int) {
        bytes.withUnsafeBytes { BlockScanner.scan($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: bytes.count, from: 0) }
    }

    @Test func everyByteStopsWhereTheGrammarSays() {
        for length in [1, 5, 16, 17, 18, 19, 40] {
            for position in [0, length / 2, length - 1] {
                for byte in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(byte)
                    let expected = Self.reference(bytes), actual = Self.scan(bytes)
                    #expect(actual == expected, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func escapesAreCheckedAcrossBlockEdges() {
        let pieces = ["%41", "%4", "%", "%zz", "%4g", "%G1", "?", "#", "a", "%a%", "%%41"]
        for length in 14...40 {
            for piece in pieces {
                for position in stride(from: max(0, length - 20), to: length, by: 1) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "b"), count: length)
                    for (k, byte) in piece.utf8.enumerated() where position + k < length { bytes[position + k] = byte }
                    #expect(Self.scan(bytes) == Self.reference(bytes), "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
    }

    @Test func emptyInputEndsAtOnce() {
        #expect(Self.scan([]) == (0, -1))
    }
}

/// The authority scanner against the userinfo class of the grammar's table.
@Suite struct BlockScannerAuthorityTests {
    static func reference(_ bytes: [UInt8]) -> (stop: Int, colon: Int, percent: Int) {
        var colon = -1, percent = -1, i = 0
        while i < bytes.count, CharacterClass.table[Int(bytes[i])] & CharacterClass.userinfo != 0 {
            if bytes[i] == UInt8(ascii: ":"), colon < 0 { colon = i }
            if bytes[i] == UInt8(ascii: "%"), percent < 0 { percent = i }
            i += 1
        }
        return (i, colon, percent)
    }

    @Test func everyByteStopsWhereTheUserinfoClassEnds() {
        for length in [0, 1, 15, 16, 17, 33] {
            for position in Set([0, length / 2, max(0, length - 1)]) where position < max(length, 1) {
                for byte in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "h"), count: length)
                    if length > 0 { bytes[position] = UInt8(byte) }
                    if length > 3 { bytes[length - 2] = UInt8(ascii: ":") }
                    let actual = bytes.withUnsafeBytes {
                        BlockScanner.scanAuthority($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: length, from: 0)
                    }
                    #expect(actual == Self.reference(bytes), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }
}
