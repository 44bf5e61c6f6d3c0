import BusTestSupport
import Courier
import Foundation
import Testing

/// Every `--json` output has the keys docs/cli.md documents for its command, in snake_case.
@Suite(.serialized) struct CLIJSONTests {
    static let documentation = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    /// The keys of the table row whose command cell starts with `command`.
    static func documentedKeys(_ command: String) throws -> Set<String> {
        let text = try String(contentsOf: documentation, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `\(command)") }
        #expect(!rows.isEmpty, "docs/cli.md documents no \(command)")
        var keys: Set<String> = []
        for row in rows {
            let cells = row.split(separator: "|")
            guard cells.count >= 2 else { continue }
            keys.formUnion(cells[1].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        return keys
    }

    /// Every key of `json` (maps of data — an app's `reply`, `dump`'s `schemes` — not entered).
    static func keys(_ json: Any) -> Set<String> {
        if let array = json as? [Any] { return array.reduce(into: []) { $0.formUnion(keys($1)) } }
        guard let object = json as? [String: Any] else { return [] }
        var found = Set(object.keys)
        for (key, value) in object where key != "reply" && key != "schemes" { found.formUnion(keys(value)) }
        return found
    }

    func check(_ command: String, _ output: String, documentedAs row: String, _ more: String...) throws {
        let lines = output.split(separator: "\n")
        #expect(!lines.isEmpty, "\(command) printed nothing")
        let documented = try ([row] + more).reduce(into: Set<String>()) { $0.formUnion(try Self.documentedKeys($1)) }
        for line in lines {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let keys = Self.keys(json)
            #expect(keys.allSatisfy { $0.range(of: "^[a-z][a-z0-9_]*$", options: .regularExpression) != nil }, "\(command): \(keys.sorted())")
            #expect(keys.subtracting(documented).isEmpty, "\(command) prints keys docs/cli.md does not list: \(keys.subtracting(documented).sorted())")
        }
    }

    @Test func everyCommandsJSONHasTheDocumentedSnakeCaseKeys() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let courier = Products.path("courier")
        let url = "todolist://www.acme.com?JSON#today"
        let open = try await fixture.run(courier, ["open", url, "--json"])
        #expect(open.status == 0, "\(open.error)")
        try check("open URL", open.output, documentedAs: "courier open --json` (a URL)")
        let dry = try await fixture.run(courier, ["open", url, "--dry-run", "--json"])
        try check("open --dry-run", dry.output, documentedAs: "courier open --json` (a URL)")
        let dryReply = try #require(try JSONSerialization.jsonObject(with: Data(dry.output.utf8)) as? [String: Any])["reply"] as? [String: Any]
        #expect(dryReply?["dry_run"] as? Bool == true && dryReply?["state"] != nil, "\(dry.output)")

        let file = fixture.root.appendingPathComponent("notes.txt").path
        try "buy milk\n".write(toFile: file, atomically: true, encoding: .utf8)
        let openFile = try await fixture.run(courier, ["open", file, "--dry-run", "--json"])
        try check("open FILE", openFile.output, documentedAs: "courier open --json` (a file)")
        let drop = try await fixture.run(courier, ["drop", file, "--to", "com.acme.todolist", "--json"])
        #expect(drop.status == 0, "\(drop.error)")
        try check("drop", drop.output, documentedAs: "courier drop --json")

        for (command, row) in [(["ps", "--json"], "courier ps --json"), (["status", "--json"], "courier status --json"),
                               (["dump", "--json"], "courier dump --json"), (["parse", url, "--json"], "courier parse --json"),
                               (["handlers", "todolist", "--json"], "courier handlers --json"),
                               (["handlers", "--type", file, "--json"], "courier handlers --json")] {
            let result = try await fixture.run(courier, command)
            #expect(result.status == 0, "\(command): \(result.error)")
            try check(command.joined(separator: " "), result.output, documentedAs: row)
        }

        // How an instance ended (`ends`), in `ps ID` and `status ID`.
        let killed = try await fixture.run(courier, ["quit", "--force", "com.acme.todolist"])
        #expect(killed.status == 0, "\(killed.error)")
        #expect(await eventually { fixture.launcher.pids.allSatisfy { fixture.launcher.exitStatus($0) != nil } })
        let ps = try await fixture.run(courier, ["ps", "com.acme.todolist", "--json"])
        #expect(ps.output.contains("\"ends\":[{"), "\(ps.output)")
        try check("ps ID", ps.output, documentedAs: "courier ps --json")
        let status = try await fixture.run(courier, ["status", "com.acme.todolist", "--json"])
        #expect(status.status == 0, "\(status.error)")
        try check("status ID", status.output, documentedAs: "courier status ID --json", "courier status --json", "courier ps --json")
    }
}
