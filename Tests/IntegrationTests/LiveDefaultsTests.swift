import BusTestSupport
import Courier
import Foundation
import Testing

/// `courier default` under a running `courierd`: the choice applies at once — the next `courier
/// open` goes to the new default, `handlers`, `handlers --explain`, `dump` and `--show` agree with
/// the broker, and `mimeapps.list` names the new app for the scheme — and `--unset` undoes it.
@Suite("Live defaults", .serialized)
struct LiveDefaultsTests {
    static let memoA = "com.acme.memo-a"
    static let memoB = "com.acme.memo-b"

    static func setup(fixtures: [String] = []) async throws -> OpenDocumentsTests.Setup {
        try await OpenDocumentsTests.Setup(fixtures: fixtures, desktopEntries: true) { writer in
            for id in [memoA, memoB] {
                try writer.write(id, schemes: ["memo"], arguments: [Products.path("courier-test-app"), "app"])
            }
        }
    }

    /// The first line of `courier handlers` (the chosen app).
    static func chosen(_ setup: OpenDocumentsTests.Setup, _ arguments: [String]) async throws -> String {
        let handlers = try await setup.courier(["handlers"] + arguments)
        #expect(handlers.status == 0, "\(handlers)")
        return String(handlers.output.split(separator: "\n").first ?? "")
    }

    /// `mimeapps.list`'s default for the scheme, once the broker's desktop writer has written it (bounded wait).
    static func mimeDefault(_ setup: OpenDocumentsTests.Setup, scheme: String, becomes expected: String) async -> String? {
        let path = setup.environment["XDG_CONFIG_HOME"]! + "/mimeapps.list"
        var value: String?
        for _ in 0..<400 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var inDefaults = false
            value = nil
            for line in text.split(separator: "\n") {
                if line.hasPrefix("[") { inDefaults = line == "[Default Applications]"; continue }
                if inDefaults, line.hasPrefix("x-scheme-handler/\(scheme)=") { value = String(line.dropFirst("x-scheme-handler/\(scheme)=".count)) }
            }
            if value == expected { break }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return value
    }

    @Test func aSchemeDefaultAppliesAtOnceEverywhereAndCanBeUnset() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let first = try await Self.chosen(setup, ["memo"])
        let other = first == Self.memoA ? Self.memoB : Self.memoA
        #expect([Self.memoA, Self.memoB].contains(first))
        #expect(await Self.mimeDefault(setup, scheme: "memo", becomes: "courier-\(first).desktop") == "courier-\(first).desktop")

        let set = try await setup.courier(["default", "memo", other])
        #expect(set.status == 0 && set.output.hasPrefix("\(other) now handles memo:\n"), "\(set)")
        // The running broker routes by it at once: no restart.
        let opened = try await setup.courier(["open", "memo://note-1"])
        #expect(opened.status == 0, "\(opened)")
        #expect(setup.deliveries(other) == ["memo://note-1"])
        #expect(setup.deliveries(first).isEmpty)
        // Every reader agrees with the broker.
        #expect(try await Self.chosen(setup, ["memo"]) == other)
        let explained = try await setup.courier(["handlers", "memo", "--explain"])
        #expect(explained.status == 0 && explained.output.contains(other), "\(explained)")
        #expect(explained.output.firstRange(of: other)!.lowerBound < explained.output.firstRange(of: first)!.lowerBound, "\(explained.output)")
        let dump = try await setup.courier(["dump", "--json"])
        #expect(dump.status == 0, "\(dump)")
        let dumped = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any]
        #expect((dumped?["schemes"] as? [String: [String]])?["memo"] == [other, first], "\(dump.output)")
        let shown = try await setup.courier(["default", "--show"])
        #expect(shown.status == 0 && shown.output == "memo: \(other)\n", "\(shown)")
        // And the desktop: xdg-open / gio open of memo: URLs reach the new app's entry.
        #expect(await Self.mimeDefault(setup, scheme: "memo", becomes: "courier-\(other).desktop") == "courier-\(other).desktop")

        let unset = try await setup.courier(["default", "--unset", "memo"])
        #expect(unset.status == 0 && unset.output.hasPrefix("memo: no longer defaults to \(other); the registry chooses \(first)\n"), "\(unset)")
        #expect(try await setup.courier(["open", "memo://note-2"]).status == 0)
        #expect(setup.deliveries(first) == ["memo://note-2"])
        #expect(try await Self.chosen(setup, ["memo"]) == first)
        let none = try await setup.courier(["default", "--show", "memo"])
        #expect(none.status == 1 && none.output.isEmpty && none.error.contains("no default is set for memo"), "\(none)")
        #expect(await Self.mimeDefault(setup, scheme: "memo", becomes: "courier-\(first).desktop") == "courier-\(first).desktop")

        let wrong = try await setup.courier(["default", "memo", "com.acme.nobody"])
        #expect(wrong.status == 3 && wrong.error.contains("com.acme.nobody"), "\(wrong)")   // no such app (docs/cli.md)
    }

    /// Two older apps that both open text: the default chosen for the type applies to the next
    /// `courier open FILE` and `courier drop` at once.
    @Test func aTypeDefaultAppliesToTheNextOpenAndDrop() async throws {
        let setup = try await Self.setup(fixtures: ["org.gnu.aquamacs.plist", "com.barebones.textwrangler.plist"])
        defer { setup.tearDown() }
        let notes = setup.path("notes.txt")
        let first = try await Self.chosen(setup, ["--type", notes])
        let other = first == "org.gnu.Aquamacs" ? "com.barebones.textwrangler" : "org.gnu.Aquamacs"
        #expect(["org.gnu.Aquamacs", "com.barebones.textwrangler"].contains(first))

        let set = try await setup.courier(["default", "--type", "public.plain-text", other])
        #expect(set.status == 0 && set.output == "\(other) now opens public.plain-text\n", "\(set)")
        #expect(try await Self.chosen(setup, ["--type", notes]) == other)
        let opened = try await setup.courier(["open", "-W", notes])
        #expect(opened.status == 0, "\(opened)")
        #expect(setup.inbox(other) == ["notes.txt"] && setup.inbox(first).isEmpty)
        let dropped = try await setup.courier(["drop", notes])
        #expect(dropped.status == 0 && dropped.output.hasPrefix("\(notes) → \(other): "), "\(dropped)")

        #expect(try await setup.courier(["default", "--unset", "--type", "public.plain-text"]).status == 0)
        #expect(try await Self.chosen(setup, ["--type", notes]) == first)
    }

    /// The broker method from a tool nobody here wrote: `defaults.json` edited by hand, then
    /// `gdbus call … ReloadDefaults`; the broker's own `HandlersForURL` follows.
    @Test func reloadDefaultsOverGDBusAppliesAHandEditedFile() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let first = try await Self.chosen(setup, ["memo"])
        let other = first == Self.memoA ? Self.memoB : Self.memoA
        let folder = setup.environment["XDG_CONFIG_HOME"]! + "/courier"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("{\"schemes\": {\"memo\": \"\(other)\"}}".utf8).write(to: URL(fileURLWithPath: folder + "/defaults.json"))
        let gdbus = { (method: String, arguments: [String]) in
            try await BackgroundProcess.run("/usr/bin/gdbus", ["call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
                                                               "--method", "org.courier.Broker1." + method] + arguments, environment: setup.environment)
        }
        let reload = try await gdbus("ReloadDefaults", [])
        #expect(reload.status == 0 && reload.output == "(['\([first, other].sorted().joined(separator: "', '"))'],)\n", "\(reload.output) \(reload.errors)")
        let handlers = try await gdbus("HandlersForURL", ["memo://x"])
        #expect(handlers.output == "(['\(other)', '\(first)'],)\n", "\(handlers.output)")
    }
}
