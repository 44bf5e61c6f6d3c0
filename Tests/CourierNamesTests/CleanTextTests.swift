import CourierNames
import Testing

@Suite struct CleanTextTests {
    @Test func lettersOfAnyScriptAndEmojiAreClean() {
        #expect(CleanText.isClean("Quarterly Report café 例え パス 🎉 ٢٠٢٦"))
    }

    @Test(arguments: [0x00, 0x09, 0x0A, 0x0D, 0x1B, 0x7F, 0x85, 0x9B, 0x2028, 0x2029] as [UInt32])
    func controlsAreUnclean(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(!CleanText.isClean(scalar))
        #expect(CleanText.isControl(scalar))
    }

    @Test(arguments: [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] as [UInt32])
    func bidirectionalFormattingIsUnclean(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(!CleanText.isClean(scalar))
        #expect(CleanText.isBidirectionalFormatting(scalar))
    }

    @Test func theFirstViolationIsFoundByScalarOffset() throws {
        let violation = try #require(CleanText.firstUnclean(in: "é\u{1B}[31m"))
        #expect(violation.offset == 1)
        #expect(violation.scalar == "\u{1B}")
        #expect(violation.description == "\\u{001B} (a control character)")
    }

    @Test func escapingShowsHostileTextInert() {
        #expect(CleanText.escaped("evil\u{202E}txt.exe\n") == "evil\\u{202E}txt.exe\\u{000A}")
    }
}
