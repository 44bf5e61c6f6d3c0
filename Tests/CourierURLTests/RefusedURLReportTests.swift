import CourierURL
import Testing

@Suite("RefusedURLReport")
struct RefusedURLReportTests {
    @Test func aShortASCIIURLGetsACaretUnderTheOffendingByte() {
        let report = RefusedURLReport(program: "courier", headline: "invalid URL", reason: "space at offset 4 is not allowed",
                                      input: "a:b c", offset: 3)
        #expect(report.description == "courier: invalid URL: space at offset 4 is not allowed\n  a:b c\n     ^\n")
    }

    @Test func noCaretWithoutAnOffsetOrForNonASCIIInput() {
        let unknown = RefusedURLReport(program: "todolist", headline: "rejected URL", reason: "no such day", input: "todolist://x", offset: nil)
        #expect(unknown.description == "todolist: rejected URL: no such day\n")
        let accented = RefusedURLReport(program: "courier", headline: "invalid URL", reason: "r", input: "é:x", offset: 0)
        #expect(accented.description == "courier: invalid URL: r\n")
    }

    @Test func jsonStringLiteralsEscapeQuotesBackslashesAndControls() {
        #expect(jsonStringLiteral("a\"b\\c\n\u{1}") == #""a\"b\\c\n\u0001""#)
    }
}
