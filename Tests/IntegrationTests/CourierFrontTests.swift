import BusTestSupport
import Foundation
import Testing

/// `courier` (the lean front: one libdbus call, linked static) answers `courier open` exactly as
/// the full CLI, `courier-tool`, does — same exit status, standard output and standard error —
/// and answers it alone: a front with no `courier-tool` beside it still does every case here.
/// A real broker on a private bus, the real todolist app.
@Suite("courier front", .serialized)
struct CourierFrontTests {
    static let cases: [[String]] = [
        ["open", BrokerBusTests.quarterly],
        ["open", "--dry-run", "todolist://www.acme.com?Dry#200806231300"],
        ["open", "todolist://www.acme.com?Bad#200813011300"],
        ["open", "--no-fallback", "nobody://x"],
        ["open", "-b", "com.nobody.x", "todolist://www.acme.com?Elsewhere"],
        ["open", "missing://x"],
        ["open", "--no-wait", "todolist://www.acme.com?Later#200806231300"],
        ["open", "--bundle-id=com.acme.todolist", "--background", "--activation-token", "t-1", "--", "todolist://www.acme.com?Flags#200806231300"],
        ["open", "todolist://www.acme.com?First#200806231300", "todolist://bad url", "nobody://x", "--no-fallback"],
        ["open", "--desktop-entry", "nobody://x"],
    ]

    @Test func frontAnswersOpenLikeTheFullCLIWithoutIt() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            try writer.write("com.acme.missing", schemes: ["missing"], arguments: ["/nonexistent/courier-app"])
        }
        defer { fixture.tearDown() }
        // The front alone: a hard link in a folder of its own (no courier-tool beside it).
        let alone = Products.folder.appendingPathComponent("front-alone-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: alone) }
        let front = alone.appendingPathComponent("courier").path
        #expect(link(Products.path("courier"), front) == 0, "cannot link the front: errno \(errno)")

        for arguments in Self.cases {
            let full = try await runProduct("courier-tool", arguments, fixture.environment)
            let lean = try await runProduct("courier", arguments, fixture.environment, executable: front)
            #expect(lean.status == full.status, "courier \(arguments): \(lean) vs courier-tool \(full)")
            #expect(lean.output == full.output, "courier \(arguments)")
            #expect(lean.error == full.error, "courier \(arguments)")
        }
        #expect(fixture.todoItems().compactMap { $0["task"] }.filter { $0 == "Quarterly Report" }.count == 2)
    }

    @Test func frontLeavesEverythingElseToTheFullCLI() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        // Files (a path, a file: URL) and the file options take the drop path, which only the full CLI has.
        let list = fixture.root.appendingPathComponent("list.txt").path
        _ = FileManager.default.createFile(atPath: list, contents: Data("milk\n".utf8))
        let cases: [[String]] = [
            ["open", "--json", "todolist://www.acme.com?Json#200806231300"],
            ["open", "--annotation", "{\"k\":1}", "todolist://www.acme.com?Note#200806231300"],
            ["open"], ["open", "--bogus", "x"], ["open", "--dry-run", "--dry-run", "todolist://x"], ["--help"], ["parse", "todolist://x?y"],
            ["open", "--dry-run", list], ["open", "--dry-run", "file://" + list], ["open", "--dry-run", "todolist://x", list],
            ["open", "--dry-run", "-a", "com.acme.todolist", "todolist://www.acme.com?App#200806231300"], ["open", "-W", "--dry-run", list],
        ]
        for arguments in cases {
            let full = try await runProduct("courier-tool", arguments, fixture.environment)
            let lean = try await runProduct("courier", arguments, fixture.environment)
            #expect(lean.status == full.status, "courier \(arguments): \(lean) vs courier-tool \(full)")
            #expect(lean.error == full.error, "courier \(arguments)")
            if !arguments.contains("--json") { #expect(lean.output == full.output, "courier \(arguments)") }
        }
        let dry = try await runProduct("courier", ["open", "--dry-run", list], fixture.environment)
        #expect(dry.status == 0 && dry.output.hasPrefix("\(list): would open in com.acme.todolist ("), "\(dry)")

        // A front alone cannot open a file: it hands the command line over, and says courier-tool is missing.
        let alone = Products.folder.appendingPathComponent("front-files-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: alone) }
        let front = alone.appendingPathComponent("courier").path
        #expect(link(Products.path("courier"), front) == 0, "cannot link the front: errno \(errno)")
        for arguments in [["open", list], ["open", "file://" + list], ["open", "-W", "todolist://x"]] {
            let lean = try await runProduct("courier", arguments, fixture.environment, executable: front)
            #expect(lean.status == 9 && lean.error.contains("courier-tool was found neither"), "courier \(arguments): \(lean)")
        }
        #expect(!fixture.todoItems().contains { $0["task"] == "milk" }, "no dry run delivered the file")
    }
}
