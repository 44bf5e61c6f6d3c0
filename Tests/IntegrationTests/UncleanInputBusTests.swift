import BusTestSupport
import Courier
import CourierTools
import DBus
import Foundation
import Testing

/// What comes from outside and would reach the bus, an app or a terminal unclean: names in
/// manifests, decoded URLs, names that are not apps. On a real bus (`COURIER_TEST_BUS` picks
/// dbus-daemon or dbus-broker), with the real todolist app and the real `courier` CLI.
@Suite("Unclean input on a private bus", .serialized)
struct UncleanInputBusTests {
    /// The repository's todolist manifest with `CFBundleName`/`CFBundleDisplayName` replaced by
    /// `name` as raw XML text (a raw NUL byte or an `&#0;` reference), written by hand: no
    /// property-list writer produces such a file.
    static func writeTodolist(_ fixture: BrokerFixture, name: String) throws {
        let source = RegisterCommandTests.schemesManifest
        var xml = try String(contentsOfFile: source, encoding: .utf8)
        xml = xml.replacingOccurrences(of: "<string>ToDoList</string>", with: "<string>To\(name)Do</string>")
        xml = xml.replacingOccurrences(of: "<string>To-Do List</string>", with: "<string>To-Do\(name)List</string>")
        xml = xml.replacingOccurrences(of: "<string>todolist</string>\n\t</array>", with: "<string>\(Products.path("todolist"))</string>\n\t</array>")
        try Data(xml.utf8).write(to: fixture.manifests.appendingPathComponent("com.acme.todolist.plist"))
    }

    @Test(arguments: ["&#0;", "\u{0}"])
    func aNulInAnAppsNameNeitherRegistersNorBreaksListingForEveryone(_ nul: String) async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.write("com.acme.notes", schemes: ["notes"], arguments: ["/bin/true"])
        }
        defer { fixture.tearDown() }
        try Self.writeTodolist(fixture, name: nul)
        let path = fixture.manifests.appendingPathComponent("com.acme.todolist.plist").path
        #expect(try await fixture.client.registerManifest(atPath: path) == "com.acme.todolist")
        let apps = try await fixture.client.listApplications()
        #expect(apps.compactMap { $0["bundle-id"]?.stringValue } == ["com.acme.notes", "com.acme.todolist"])
        // Both names were ignored: the app is listed under its bundle id.
        #expect(apps.last?["name"]?.stringValue == "com.acme.todolist")
        // Tools nobody here wrote, and the CLI, list every app.
        let busctl = try await fixture.run("/usr/bin/busctl", ["--user", "--json=short", "call", "org.courier.Broker", "/org/courier/Broker", "org.courier.Broker1", "ListApplications"],
                                           environment: ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address])
        #expect(busctl.status == 0 && busctl.output.contains("com.acme.notes"), "\(busctl)")
        let status = try await fixture.run(Products.path("courier"), ["status"])
        #expect(status.status == 0 && status.output.contains("com.acme.notes") && status.output.contains("com.acme.todolist"), "\(status)")
        let dump = try await fixture.run(Products.path("courier"), ["dump"])
        #expect(dump.status == 0, "\(dump)")
        // The app still works.
        let opened = try await fixture.client.open("todolist://www.acme.com?Named#today")
        #expect(opened.handled)
    }

    @Test(arguments: [
        ("todolist://www.acme.com?a%00b", "\\u{0000} (a control character) in the query at offset 25 (%00)"),
        ("todolist://www.acme.com?Pay%0A%1b%5B31mrent", "\\u{000A} (a control character) in the query at offset 27 (%0A)"),
        ("todolist://www.acme.com?Report#%E2%80%AE", "\\u{202E} (a bidirectional formatting character) in the fragment at offset 31 (%E2%80%AE)"),
        ("todolist://www.acme.com/%C2%85?Task", "\\u{0085} (a control character) in the path at offset 24 (%C2%85)"),
    ])
    func aControlCharacterInADecodedComponentIsAnInvalidURLBeforeAnythingIsLaunched(_ url: String, _ expected: String) async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(url) }
        #expect(error?.dbusName == "org.courier.Error.InvalidURL", "\(String(describing: error))")
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } == true)
        #expect(fixture.launcher.count == 0)
        #expect(fixture.todoItems().isEmpty)
        // The CLI says it with the invalid-URL exit status (2).
        let cli = try await fixture.run(Products.path("courier"), ["open", url])
        #expect(cli.status == 2, "\(cli)")
        #expect(fixture.launcher.count == 0)
    }

    /// An app whose URL format declares `AllowsControlCharacters` gets them.
    @Test func aFormatThatAllowsControlCharactersGetsThem() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.write("com.acme.todolist", schemes: ["todolist"], arguments: [Products.path("todolist")],
                             urlFormat: ["Schemes": ["todolist"], "AllowsControlCharacters": true])
        }
        defer { fixture.tearDown() }
        let opened = try await fixture.client.open("todolist://www.acme.com?Tab%09separated")
        #expect(opened.handled)
        #expect(fixture.launcher.count == 1)
        #expect(fixture.todoItems().map { $0["task"] } == ["Tab\tseparated"])
    }

    @Test(arguments: ["org.courier.Broker", "org.courier.BrokerLink1", "org.freedesktop.DBus", "org.freedesktop.Notifications"])
    func aNameOfTheBusOrOfCourierIsNotAnApp(_ bundleID: String) async throws {
        let fixture = try await BrokerFixture()
        defer { fixture.tearDown() }
        let folder = fixture.root.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: folder).write(bundleID, schemes: ["reserved"], arguments: ["/bin/true"])
        let path = folder.appendingPathComponent("\(bundleID).plist").path
        let error = await #expect(throws: CourierError.self) {
            try await fixture.client.registerManifest(file: UnixFD(taking: open(path, O_RDONLY | O_CLOEXEC)), path: path)
        }
        #expect(error?.dbusName == "org.courier.Error.InvalidManifest", "\(String(describing: error))")
        #expect(error?.message.contains("is reserved for the bus and for Courier itself") == true, "\(error?.message ?? "")")
        #expect(try await fixture.client.listApplications().isEmpty)
        let routed = await #expect(throws: CourierError.self) { try await fixture.client.open("reserved://x") }
        #expect(routed?.dbusName == "org.courier.Error.NoHandler")
    }
}
