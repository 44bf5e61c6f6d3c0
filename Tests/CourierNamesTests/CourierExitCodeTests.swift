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

    /// A command's `--help` names its statuses through `help`: each number from the table, the
    /// command's words after it.
    @Test func aCommandsHelpTakesEachNumberFromTheTable() {
        #expect(CourierExitCode.help([(.handled, ""), (.unknownApp, "no such app"), (.cannotWrite, "cannot be saved")])
                == "Exit status: 0; 3 no such app; 73 cannot be saved.")
        #expect(CourierExitCode.help([(.usage, "usage error")], then: "More.") == "Exit status: 64 usage error. More.")
        #expect(CourierExitCode.openHelp.hasPrefix("Exit status: 0 handled; 1 declined by the app; 2 invalid URL; 3 no handler;"))
        #expect(CourierExitCode.dropHelp.contains("; 12 not enough free space for the drop; 13 the app's container is unsafe"))
    }

    /// No command writes an exit status's number into its help by hand: the sentence comes from
    /// `CourierExitCode.help`, so a renumbered status cannot leave a help text behind. Checked in
    /// the sources of every command that exits with these statuses.
    @Test func noCommandSpellsItsExitStatusesByHand() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var handWritten: [String] = []
        for folder in ["courier-tool", "CourierFront", "courierd", "todolist", "CourierShareOptions"] {
            let directory = sources.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                if text.range(of: #"Exit status: [0-9]"#, options: .regularExpression) != nil { handWritten.append("\(folder)/\(name)") }
            }
        }
        #expect(handWritten.isEmpty, "exit statuses written by hand in \(handWritten): use CourierExitCode.help")
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
