import CourierNames
import Foundation
import Testing

/// The one exit-status table of `courier` (static front and courier-tool alike).
@Suite struct CourierExitCodeTests {
    @Test func openMapsEachOutcomeAndTheBusSayingNoBroker() {
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.courier.Error.LaunchTimeout")) == .launchTimeout)
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.freedesktop.DBus.Error.ServiceUnknown")) == .brokerUnavailable)
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.freedesktop.DBus.Error.NoMemory")) == .otherError)
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.courier.Error.SomethingNew")) == .otherError)
        #expect(CourierExitCode(.noSpace) == .otherError, "open has no status for a drop's refusal")
        // A caller's deadline and a hung app each have their own status, apart from a failed app.
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.courier.Error.Unanswered")) == .unanswered)
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.courier.Error.Withdrawn")) == .withdrawn)
        #expect(CourierExitCode(CourierErrorCode(classifying: "org.courier.Error.NotResponding")) == .notResponding)
    }

    @Test func dropKeepsItsOwnRefusalsApart() {
        #expect(CourierExitCode(dropping: .noSpace) == .noSpace)
        #expect(CourierExitCode(dropping: .unsafeContainer).rawValue == 13)
        #expect(CourierExitCode(dropping: .declined) == .declined)
    }

    @Test func statusesAreDistinctAndTheDocumentedNumbers() {
        #expect(Set(CourierExitCode.allCases.map(\.rawValue)).count == CourierExitCode.allCases.count)
        #expect(CourierExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 64, 65, 66, 73])
    }

    /// docs/cli.md's table is `CourierExitCode.markdownTable`, between its markers; with
    /// COURIER_WRITE_DOCS=1 this test writes it there.
    @Test func theDocumentedTableIsTheEnum() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/cli.md")
        let text = try String(contentsOf: path, encoding: .utf8)
        let (begin, end) = ("<!-- exit-codes: generated from CourierExitCode -->\n", "<!-- /exit-codes -->")
        let start = try #require(text.range(of: begin)), stop = try #require(text.range(of: end))
        if ProcessInfo.processInfo.environment["COURIER_WRITE_DOCS"] == "1" {
            try (text[..<start.upperBound] + CourierExitCode.markdownTable + text[stop.lowerBound...]).write(to: path, atomically: true, encoding: .utf8)
        }
        let written = try String(contentsOf: path, encoding: .utf8)
        let documented = written[try #require(written.range(of: begin)).upperBound..<(try #require(written.range(of: end))).lowerBound]
        #expect(String(documented) == CourierExitCode.markdownTable, "docs/cli.md's exit statuses differ from CourierExitCode: COURIER_WRITE_DOCS=1 swift test --filter CourierExitCodeTests")
        #expect(CourierExitCode.unknownApp == .noHandler)
    }
}
