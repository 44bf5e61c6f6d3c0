import CourierManifest
import CourierURL
import Foundation
import Testing
import TodoListKit
import URIParserOracle

/// The guide's todolist format: query = task, fragment = due date, `today`, or nothing.
struct TodoURLTests {
    func date(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) throws -> LocalDateTime {
        try LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi)
    }

    @Test func guideExampleDecodesToQuarterlyReportDueJune23At1300() throws {
        let todo = try TodoURL("todolist://www.acme.com?Quarterly%20Report#200806231300")
        #expect(todo.task == "Quarterly Report")
        #expect(todo.due == .at(try date(2008, 6, 23, 13, 0)))
    }

    @Test func todayAndAbsentFragmentBothMeanNow() throws {
        #expect(try TodoURL("todolist://www.acme.com?Call%20Mom#today").due == .now)
        #expect(try TodoURL("todolist://www.acme.com?Call%20Mom").due == .now)
        let now = Date(timeIntervalSince1970: 1_214_226_000)  // 2008-06-23T13:00Z
        let utc = TimeZone(identifier: "UTC")!
        #expect(TodoURL.Due.now.localDateTime(now: now, timeZone: utc) == (try date(2008, 6, 23, 13, 0)))
    }

    /// The app's clock (`localtime_r`, no ICU) says what Foundation's calendar says for now here.
    @Test func nowWithoutFoundationIsFoundationsLocalTime() {
        let before = TodoURL.Due.now.localDateTime(now: Date())
        let now = TodoURL.Due.now.localDateTime()
        let after = TodoURL.Due.now.localDateTime(now: Date())
        #expect(now == before || now == after, "\(now) is neither \(before) nor \(after)")
        let fixed = try? date(2008, 6, 23, 13, 0)
        #expect(fixed.map { TodoURL.Due.at($0).localDateTime() } == fixed)
    }

    @Test(arguments: [
        ("200002291200", true),  // 2000: divisible by 400, leap
        ("190002291200", false),  // 1900: century, not leap
        ("202402290000", true),  // 2024: leap
        ("202302290000", false),
        ("200802301300", false),  // 30 February
        ("200806232400", false),  // hour 24
        ("200806231360", false),  // minute 60
        ("200813011200", false),  // month 13
        ("200806000000", false),  // day 0
        ("200804311200", false),  // 31 April
        ("200812312359", true),
        ("20080623130", false),  // 11 digits
        ("2008062313000", false),  // 13 digits
        ("2008-06-23T1", false),
        ("Today", false),  // keywords are exact
        ("", false),
        ("%32%30%30%38%30%36%32%33%31%33%30%30", true),  // escaped digits decode once
    ])
    func dueDatesMustBeRealDatesAndTimes(fragment: String, valid: Bool) {
        let url = "todolist://www.acme.com?Task#\(fragment)"
        let result = Result { () throws(TodoURLError) in try TodoURL(url) }
        switch result {
        case .success: #expect(valid, "\(url) was accepted")
        case .failure(let error):
            #expect(!valid, "\(url) was refused: \(error)")
            #expect(error.reason.hasPrefix("the due date (fragment)") || error.reason.hasPrefix("invalid URL"), "\(error)")
        }
    }

    @Test func refusalsSayWhy() {
        #expect { try TodoURL("todolist://www.acme.com?Task#200802301300") } throws: {
            "\($0)".contains("30 February 2008 does not exist (February 2008 has 29 days)")
        }
        #expect { try TodoURL("todolist://www.acme.com?Task#200806232400") } throws: { "\($0)".contains("hour 24") }
        #expect { try TodoURL("todolist://www.acme.com?Task#200806231360") } throws: { "\($0)".contains("minute 60") }
        #expect { try TodoURL("todolist://www.acme.com#today") } throws: { "\($0)".contains("the task (query) is required") }
    }

    @Test func percentEncodedUTF8TaskNamesDecodeOnce() throws {
        #expect(try TodoURL("todolist://x?R%C3%A9sum%C3%A9%20%F0%9F%93%9D").task == "Résumé 📝")
        #expect(try TodoURL("todolist://x?100%2525").task == "100%25")  // decoded once, not twice
        #expect(try TodoURL("todolist://x?%E6%97%A5%E6%9C%AC").task == "日本")
    }

    @Test func plusStaysAPlus() throws {
        #expect(try TodoURL("todolist://x?C++%20notes").task == "C++ notes")
    }

    @Test(arguments: [
        "todolist://x?%zz", "todolist://x?%4", "todolist://x?abc%", "todolist://x?%C3%28", "todolist://x?%FF",
        "todolist://x?a b",
    ])
    func invalidEscapesAndBytesAreRefused(url: String) {
        #expect(throws: TodoURLError.self) { try TodoURL(url) }
    }

    @Test(arguments: ["todolist://x?", "todolist://x?%20", "todolist://x?%09%0A%20", "todolist://x?%E2%80%83"])
    func emptyOrBlankTasksAreRefused(url: String) {
        #expect(throws: TodoURLError.self) { try TodoURL(url) }
    }

    @Test func otherSchemesAreRefused() {
        #expect { try TodoURL("http://x?Task") } throws: { "\($0)".contains("scheme") }
        #expect(throws: TodoURLError.self) { try TodoURL(task: " ") }
    }

    @Test func schemeIsCaseInsensitive() throws {
        #expect(try TodoURL("TodoList://x?Task").task == "Task")
    }

    /// decode ∘ encode is the identity, over seeded random tasks and dates.
    @Test func decodingAnEncodedTodoGivesItBack() throws {
        var generator = SplitMix64(state: 0x70D0)
        let alphabet: [Character] = Array("aZ09 +-_.~!$&'()*,;=:@/?#%[]\"<>\\^`{|}\t") + ["é", "日", "📅", "\u{0}", "\u{7F}", "\u{A0}"]
        for _ in 0..<2000 {
            let length = Int.random(in: 1...24, using: &generator)
            var task = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if task.allSatisfy(\.isWhitespace) { task += "x" }
            let due: TodoURL.Due
            if Bool.random(using: &generator) {
                due = .now
            } else {
                let year = Int.random(in: 1...9999, using: &generator)
                let month = Int.random(in: 1...12, using: &generator)
                due = .at(try LocalDateTime(
                    year: year, month: month, day: Int.random(in: 1...LocalDateTime.daysIn(month: month, year: year), using: &generator),
                    hour: Int.random(in: 0...23, using: &generator), minute: Int.random(in: 0...59, using: &generator)))
            }
            let todo = try TodoURL(task: task, due: due)
            let url = todo.url()
            #expect(try TodoURL(url) == todo, "\(url)")
        }
    }

    /// The manifest's property-list form of the format is the Swift one.
    @Test func propertyListFormIsTheSwiftFormat() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>Schemes</key>
                <array><string>todolist</string></array>
                <key>Components</key>
                <dict>
                    <key>query</key>
                    <dict>
                        <key>Presence</key><string>required</string>
                        <key>Decoding</key><string>percent</string>
                        <key>NonBlank</key><true/>
                    </dict>
                    <key>fragment</key>
                    <dict>
                        <key>Presence</key><string>optional</string>
                        <key>Type</key><string>date</string>
                        <key>Format</key><string>yyyyMMddHHmm</string>
                        <key>Keywords</key><array><string>today</string></array>
                    </dict>
                </dict>
            </dict>
            </plist>
            """
        let value = try PropertyListSerialization.propertyList(from: Data(plist.utf8), format: nil)
        #expect(try URLFormat(propertyList: value) == TodoURL.format)
        #expect(try URLFormat(propertyList: TodoURL.format.propertyList) == TodoURL.format)
    }
}


extension TodoURLTests {
    /// The todolist manifest in Schemes/ carries the same format as data, so the broker refuses
    /// exactly the URLs the app refuses.
    @Test func todolistManifestDeclaresTheSameFormat() throws {
        let manifest = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemes/com.acme.todolist.plist")
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: manifest), format: nil)
        let value = try #require((plist as? [String: Any])?["CourierURLFormat"])
        let format = try URLFormat(propertyList: value)
        #expect(format == TodoURL.format)
        #expect(throws: URLFormatViolation.self) { try format.validate(URI("todolist://www.acme.com?Task#200802301300")) }
        try format.validate(URI("todolist://www.acme.com?Quarterly%20Report#200806231300"))
    }
}

extension TodoURLTests {
    @Test func localTimeOfExtremeInstantsIsClamped() throws {
        let utc = TimeZone(identifier: "UTC")!
        #expect(LocalDateTime(Date(timeIntervalSince1970: 0), timeZone: utc) == (try date(1970, 1, 1, 0, 0)))
        #expect(LocalDateTime(Date(timeIntervalSince1970: -1e12), timeZone: utc).year == 1)
        #expect(LocalDateTime(Date(timeIntervalSince1970: 1e12), timeZone: utc).year == 9999)
        let summer = try #require(try date(2008, 6, 23, 13, 0).date(in: TimeZone(identifier: "Europe/Paris")!))
        #expect(summer == Date(timeIntervalSince1970: 1_214_218_800))  // 11:00 UTC (CEST, +2)
    }
}
