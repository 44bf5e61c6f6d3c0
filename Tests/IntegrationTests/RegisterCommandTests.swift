import BusTestSupport
import Courier
import Foundation
import Testing
import CourierTools

/// `courier register` as a new user meets it (README quick start), with a real broker on a private
/// bus and the real todolist app: the launch command resolves the way the registering user
/// expects, registration is all or nothing, and its diagnostics name the user's file.
@Suite("courier register", .serialized)
struct RegisterCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemesManifest = repository.appendingPathComponent("Schemes/com.acme.todolist.plist").path

    /// The user's manifests folder in `fixture`'s homes: what `register` writes.
    static func installed(_ fixture: BrokerFixture) -> [String] {
        let folder = fixture.environment["XDG_DATA_HOME"]! + "/courier/manifests"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func aBareLaunchCommandRunsWhatTheRegisteringUserHasOnPath() async throws {
        // The broker's PATH lacks the build folder (as a bus-activated broker lacks ~/.local/bin);
        // the user's PATH has it, and the repository's manifest says just "todolist".
        let fixture = try await BrokerFixture(brokerSearchPath: "/usr/bin:/bin")
        defer { fixture.tearDown() }
        let register = try await runProduct("courier", ["register", Self.schemesManifest], fixture.environment)
        #expect(register.status == 0, "\(register)")
        #expect(register.output.contains("registered com.acme.todolist from \(Self.schemesManifest) (launch: \(Products.path("todolist")))"), "\(register.output)")
        #expect(Self.installed(fixture) == ["com.acme.todolist.plist"])
        let open = try await runProduct("courier", ["open", BrokerBusTests.quarterly], fixture.environment)
        #expect(open.status == 0, "\(open)")
        #expect(fixture.todoItems().map { $0["task"] } == ["Quarterly Report"])
    }

    /// `register` prints the path it records, and the file the broker reads says it: also for a
    /// manifest already in the manifests folder (recorded in place, not copied), and the copy is
    /// written without Foundation's property-list writer (which fails in the statically linked
    /// `courier-tool` that scripts/install builds).
    @Test func thePathRegisterPrintsIsThePathTheBrokerRuns() async throws {
        let fixture = try await BrokerFixture(brokerSearchPath: "/usr/bin:/bin")
        defer { fixture.tearDown() }
        let folder = fixture.environment["XDG_DATA_HOME"]! + "/courier/manifests"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let placed = folder + "/todolist-by-hand.plist"
        try FileManager.default.copyItem(atPath: Self.schemesManifest, toPath: placed)
        let register = try await runProduct("courier", ["register", placed], fixture.environment)
        #expect(register.status == 0, "\(register)")
        #expect(register.output.contains("(launch: \(Products.path("todolist")))"), "\(register.output)")
        #expect(Self.installed(fixture) == ["todolist-by-hand.plist"])
        let recorded = try #require(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: placed)), format: nil) as? [String: Any])
        #expect(recorded["CourierLaunchArguments"] as? [String] == [Products.path("todolist")])
        // Everything else survives the rewrite.
        let original = try #require(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: Self.schemesManifest)), format: nil) as? [String: Any])
        #expect(NSDictionary(dictionary: recorded.filter { $0.key != "CourierLaunchArguments" }).isEqual(to: original.filter { $0.key != "CourierLaunchArguments" }))
        let open = try await runProduct("courier", ["open", BrokerBusTests.quarterly], fixture.environment)
        #expect(open.status == 0, "\(open)")
    }

    @Test func aLaunchCommandNotOnTheUsersPathIsAWarningThenAnErrorThatSaysHowToFixIt() async throws {
        let fixture = try await BrokerFixture(brokerSearchPath: "/usr/bin:/bin")
        defer { fixture.tearDown() }
        var elsewhere = fixture.environment
        elsewhere["PATH"] = "/usr/bin:/bin"
        let blind = try await runProduct("courier", ["register", Self.schemesManifest], elsewhere)
        #expect(blind.status == 0, "\(blind)")
        #expect(blind.error.contains("\(Self.schemesManifest): CourierLaunchArguments[0]: warning: 'todolist' is not on your PATH"), "\(blind.error)")
        let strict = try await runProduct("courier", ["register", "--strict", Self.schemesManifest], elsewhere)
        #expect(strict.status == 65 && strict.error.contains("nothing was installed"), "\(strict)")
        let failed = try await runProduct("courier", ["open", "todolist://www.acme.com?Later"], fixture.environment)
        #expect(failed.status == 4, "\(failed)")
        #expect(failed.error.contains("'todolist' was not found on the broker's PATH (/usr/bin:/bin); run `courier register MANIFEST` again from a shell whose PATH has it"), "\(failed.error)")
    }

    @Test func aRelativeLaunchCommandIsResolvedAgainstTheUsersFile() async throws {
        let fixture = try await BrokerFixture(brokerSearchPath: "/usr/bin:/bin")
        defer { fixture.tearDown() }
        let app = fixture.root.appendingPathComponent("myapp", isDirectory: true)
        try FileManager.default.createDirectory(at: app.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: app.appendingPathComponent("bin/todolist").path, withDestinationPath: Products.path("todolist"))
        var plist = try #require(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: Self.schemesManifest)), format: nil) as? [String: Any])
        plist["CourierLaunchArguments"] = ["bin/todolist"]
        let manifest = app.appendingPathComponent("Info.plist")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: manifest)

        let register = try await runProduct("courier", ["register", manifest.path], fixture.environment)
        #expect(register.status == 0 && register.error.isEmpty, "\(register)")
        #expect(register.output.contains("(launch: \(app.path)/bin/todolist)"), "\(register.output)")
        let open = try await runProduct("courier", ["open", BrokerBusTests.quarterly], fixture.environment)
        #expect(open.status == 0, "\(open)")
    }

    @Test func aRefusedManifestLeavesNothingAndNamesTheUsersFile() async throws {
        let fixture = try await BrokerFixture()
        defer { fixture.tearDown() }
        let package = Self.repository.appendingPathComponent("Package.swift").path
        let notPlist = try await runProduct("courier", ["register", package], fixture.environment)
        #expect(notPlist.status == 65, "\(notPlist)")
        #expect(notPlist.error.hasPrefix("\(package): error: the file is not a property list"), "\(notPlist.error)")
        #expect(notPlist.error.contains("courier register: \(package) was not registered (nothing was installed)"))

        let broken = fixture.root.appendingPathComponent("broken.plist")
        try Data("<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key><string>com.x".utf8).write(to: broken)
        #expect(try await runProduct("courier", ["register", broken.path], fixture.environment).status == 65)

        let missing = try await runProduct("courier", ["register", fixture.root.appendingPathComponent("nothere.plist").path], fixture.environment)
        #expect(missing.status == 66 && missing.error.contains("cannot read the file") && !missing.error.contains("USAGE"), "\(missing)")

        // Every scheme dropped, launch key of the wrong type: the warnings, then a refusal.
        let unusable = fixture.root.appendingPathComponent("unusable.plist")
        try PropertyListSerialization.data(fromPropertyList: [
            "CFBundleIdentifier": "com.example.unusable",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["myapp://"]]],
            "CourierLaunchArguments": "myapp --flag",
        ], format: .xml, options: 0).write(to: unusable)
        let refused = try await runProduct("courier", ["register", unusable.path], fixture.environment)
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.error.contains("\(unusable.path): CFBundleURLTypes[0].CFBundleURLSchemes[0]: warning: 'myapp://' is not a scheme name"), "\(refused.error)")
        #expect(refused.error.contains("\(unusable.path): CourierLaunchArguments: warning: CourierLaunchArguments is a string"))
        #expect(refused.error.contains("nothing would reach it"))

        #expect(Self.installed(fixture).isEmpty)
        let dump = try await runProduct("courier", ["dump", "--json"], fixture.environment)
        #expect(dump.status == 0 && !dump.output.contains("com.example.unusable") && !dump.output.contains("courier/manifests"), "\(dump.output)")

        // A good registration, then a broken edit of the same app: the good copy stays.
        #expect(try await runProduct("courier", ["register", Self.schemesManifest], fixture.environment).status == 0)
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture.environment["XDG_DATA_HOME"]! + "/courier/manifests/com.acme.todolist.plist"))
        let edit = fixture.root.appendingPathComponent("todolist-edit.plist")
        try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": "com.acme.todolist", "CFBundleURLTypes": [["CFBundleURLSchemes": ["todolist://"]]], "CourierLaunchArguments": [Products.path("todolist")]], format: .xml, options: 0).write(to: edit)
        #expect(try await runProduct("courier", ["register", edit.path], fixture.environment).status == 65)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.environment["XDG_DATA_HOME"]! + "/courier/manifests/com.acme.todolist.plist")) == good)
        #expect(Self.installed(fixture) == ["com.acme.todolist.plist"])
        #expect(try await runProduct("courier", ["handlers", "todolist"], fixture.environment).output == "com.acme.todolist\n")
    }

    /// The real courierd says "1 app", not "1 apps", when it starts serving.
    @Test func courierdCountsItsAppsInEnglish() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("count", isDirectory: true)
        let manifests = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: manifests).todolist()
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--manifests", manifests.path, "--no-desktop-entries", "--log-level=info"],
                                               environment: bus.environment(homesIn: root), outputIn: root, client: client)
        defer { courierd.kill() }
        #expect(await client.brokerIsRunning())
        let serving = courierd.errors.split(separator: "\n").first { $0.contains("courierd serving") }.map(String.init) ?? courierd.errors
        #expect(serving.contains("; 1 app from \(manifests.path)"), "\(serving)")
    }

    @Test func theSmallThingsOfTheFirstHour() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let version = try await runProduct("courier", ["--version"], fixture.environment)
        #expect(version.status == 0 && version.output.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(version)")
        let typo = try await runProduct("courier", ["open", "--no-fallback", "todolst://www.acme.com?X"], fixture.environment)
        #expect(typo.status == 3 && typo.error.contains("did you mean todolist:?"), "\(typo)")
        let reserved = try await runProduct("courier", ["open", "--no-fallback", "https://example.org"], fixture.environment)
        #expect(reserved.status == 3 && reserved.error.contains("https is reserved for the desktop's own handler") && !reserved.error.contains("courier register"), "\(reserved)")
        let handlers = try await runProduct("courier", ["handlers", "nobody"], fixture.environment)
        #expect(handlers.status == 3, "\(handlers)")
        let canOpen = try await runProduct("courier", ["can-open", "nobody://x"], fixture.environment)
        #expect(canOpen.status == handlers.status, "\(canOpen)")

        // Completions offer the registered bundle ids and schemes (what the generated scripts run).
        var offline = fixture.environment
        offline["COURIER_MANIFEST_PATH"] = fixture.manifests.path
        let ids = try await runProduct("courier", ["---completion", "unregister", "--", "positional@0", "2", "7", "courier", "unregister", "com.acm"], offline)
        #expect(ids.status == 0 && ids.output == "com.acme.todolist\n", "\(ids)")
        let schemes = try await runProduct("courier", ["---completion", "handlers", "--", "positional@0", "2", "2", "courier", "handlers", "to"], offline)
        #expect(schemes.status == 0 && schemes.output == "todolist\n", "\(schemes)")
        let bash = try await runProduct("courier", ["--generate-completion-script", "bash"], offline)
        #expect(bash.output.contains("---completion log -- positional@0"))

        // `todolist list`: a task without a due time prints without an empty "— due ".
        let documents = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.todolist/Documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Data(#"[{"task":"buy milk","due":"","source":""},{"task":"Pay rent","due":"2008-06-23 13:00","source":""}]"#.utf8)
            .write(to: documents.appendingPathComponent("todolist.json"))
        let list = try await runProduct("todolist", ["list"], fixture.environment)
        #expect(list.status == 0 && list.output == "buy milk\nPay rent — due 2008-06-23 13:00\n", "\(list)")
    }
}
