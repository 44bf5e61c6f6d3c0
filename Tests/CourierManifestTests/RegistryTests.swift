import BusTestSupport
import Foundation
import Testing
import CourierNames
@testable import CourierManifest
import CourierTypes

@Suite struct RegistryTests {
    func registry(_ manifests: [Manifest], preferences: RegistryPreferences = RegistryPreferences(), claims: ClaimOrder = ClaimOrder()) throws -> Registry {
        var r = Registry(types: TypeGraph(mimeDatabase: .empty), preferences: preferences, claimOrder: claims)
        for m in manifests { try r.register(m) }
        return r
    }

    @Test func rankDecidesOwnerOverDefaultOverAlternate() throws {
        let r = try registry([
            manifest("com.a.alt", schemes: ["x": .alternate]),
            manifest("com.a.def", schemes: ["x": .default]),
            manifest("com.a.own", schemes: ["x": .owner]),
        ])
        let h = r.handlers(forScheme: "X")
        #expect(h.bundleIdentifiers == ["com.a.own", "com.a.def", "com.a.alt"])
        #expect(h.candidates[0].explanation.contains("highest rank"))
        #expect(h.candidates[2].explanation.contains("rank Alternate is below Owner"))
    }

    /// Two identifiers that map to one D-Bus name cannot both be reached on the bus: the second is
    /// refused, with a message naming both; the first is untouched, and unrelated ids pass.
    @Test func anIdentifierWhoseBusNameCollidesIsRefused() throws {
        var r = try registry([manifest("com.acme.a-b", schemes: ["x": .owner], path: "/m/first.plist")])
        do {
            try r.register(manifest("com.acme.a_b", schemes: ["y": .owner], path: "/m/second.plist"))
            Issue.record("registered a colliding identifier")
        } catch {
            #expect(error.code == .busNameCollision)
            #expect(error.message.contains("com.acme.a_b") && error.message.contains("com.acme.a-b") && error.message.contains("/m/first.plist"))
        }
        #expect(r.handlers(forScheme: "x").bundleIdentifiers == ["com.acme.a-b"])
        #expect(r.application(bundleIdentifier: "com.acme.a_b") == nil)
        try r.register(manifest("com.8bit.bitwarden", schemes: ["bitwarden": .owner], path: "/m/bw.plist"))
        #expect(throws: RegistryError.self) { try r.register(manifest("com._8bit.bitwarden", path: "/m/bw2.plist")) }
        // Once the first is gone, the name is free.
        try r.unregister(bundleIdentifier: "com.acme.a-b")
        try r.register(manifest("com.acme.a_b", schemes: ["y": .owner], path: "/m/second.plist"))
        #expect(r.handlers(forScheme: "y").bundleIdentifiers == ["com.acme.a_b"])
        // The same file may change its identifier to one colliding only with its own old one.
        try r.register(manifest("com.acme.a-b", schemes: ["y": .owner], path: "/m/second.plist"))
        #expect(r.application(bundleIdentifier: "com.acme.a_b") == nil)
    }

    @Test func loadingKeepsTheFirstOfTwoCollidingFilesAndReportsTheOther() throws {
        let folder = TemporaryFolder()
        folder.write("a.plist", appPlist("com.acme.todo-list", schemes: ["x"]))
        folder.write("b.plist", appPlist("com.acme.todo_list", schemes: ["y"]))
        let (registry, change) = Registry.build(files: ManifestLoader().load(folders: [folder.path]).files, previous: Registry(types: TypeGraph(mimeDatabase: .empty)))
        #expect(registry.applications.keys.sorted() == ["com.acme.todo-list"])
        let refused = change.diagnostics.first { $0.code == .busNameCollision }
        #expect(refused?.file == folder.url("b.plist"))
        #expect(refused?.keyPath == "CFBundleIdentifier")
        #expect(refused?.severity == .error)
    }

    @Test func rankNoneIsListedButNeverChosen() throws {
        let r = try registry([manifest("com.a.none", schemes: ["x": .none])])
        let h = r.handlers(forScheme: "x")
        #expect(h.chosen == nil)
        #expect(h.bundleIdentifiers.isEmpty)
        #expect(h.candidates.map(\.status) == [.rankNone])
        #expect(h.explanationText.contains("None"))
    }

    @Test func userDefaultBeatsRank() throws {
        var r = try registry([manifest("com.a.own", schemes: ["x": .owner]), manifest("com.a.alt", schemes: ["x": .alternate])])
        try r.setDefault("com.a.alt", forScheme: "x")
        let h = r.handlers(forScheme: "x")
        #expect(h.bundleIdentifiers == ["com.a.alt", "com.a.own"])
        #expect(h.candidates[0].explanation == "chosen: the user's default")
        #expect(h.candidates[1].explanation.contains("the user chose com.a.alt"))
    }

    /// A desktop application as the default: no Courier app is chosen (so Courier hands the scheme
    /// or type to the desktop), `--explain` says why, a Courier default takes the key back, and the
    /// choice survives `defaults.json`.
    @Test func aDesktopDefaultLeavesNoCourierAppChosenAndIsSaved() throws {
        var r = try registry([manifest("com.a.own", schemes: ["x": .owner], documents: [("public.plain-text", .owner)])])
        let change = try r.setDesktopDefault("firefox.desktop", forScheme: "X")
        #expect(change.schemes == ["x"] && change.updated == ["com.a.own"])
        let h = r.handlers(forScheme: "x")
        #expect(h.chosen == nil && h.bundleIdentifiers.isEmpty && h.desktopDefault == "firefox.desktop")
        #expect(h.candidates.map(\.status) == [.desktopDefault])
        #expect(h.explanationText.contains("the desktop's firefox.desktop"))
        #expect(r.schemeOwnerships().first?.schemes == [])

        try r.setDesktopDefault("gedit.desktop", forType: "public.text")
        #expect(r.handlers(forType: "public.plain-text").chosen == nil, "a default applies to conforming types")

        let state = TemporaryFolder()
        let store = RegistryStateStore(folder: state.path)
        try store.save(preferences: r.preferences)
        #expect(store.load().preferences == r.preferences)

        try r.setDefault("com.a.own", forScheme: "x")
        #expect(r.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.a.own")
        #expect(r.preferences.desktopSchemeDefaults.isEmpty)
        r.clearDefault(forType: "public.text")
        #expect(r.handlers(forType: "public.plain-text").chosen?.bundleIdentifier == "com.a.own")
    }

    @Test func firstClaimBreaksTiesAndIsNotFooledByNames() throws {
        let r = try registry([manifest("com.z.first", schemes: ["x": .default]), manifest("com.a.later", schemes: ["x": .default])])
        let h = r.handlers(forScheme: "x")
        #expect(h.bundleIdentifiers == ["com.z.first", "com.a.later"])
        #expect(h.candidates[1].explanation.contains("claimed 'x' first"))
    }

    @Test func persistedClaimOrderSurvivesAReloadWhereALaterFileSortsFirst() throws {
        let folder = TemporaryFolder()
        folder.write("m.plist", appPlist("com.acme.first", schemes: ["x"]))
        let loader = ManifestLoader()
        let empty = Registry(types: TypeGraph(mimeDatabase: .empty))
        let (one, _) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: empty)
        folder.write("a.plist", appPlist("com.acme.sneaky", schemes: ["x"]))  // sorts before m.plist
        let (two, change) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: one)
        #expect(two.handlers(forScheme: "x").bundleIdentifiers == ["com.acme.first", "com.acme.sneaky"])
        #expect(change.added == ["com.acme.sneaky"])
        // And through the persisted file, in a fresh process' worth of state.
        let state = TemporaryFolder()
        let store = RegistryStateStore(folder: state.path)
        _ = try store.save(claimOrder: two.claimOrder, removing: [])
        let fresh = Registry(types: TypeGraph(mimeDatabase: .empty), claimOrder: store.load().claimOrder)
        let (three, _) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: fresh)
        #expect(three.handlers(forScheme: "x").bundleIdentifiers == ["com.acme.first", "com.acme.sneaky"])
    }

    @Test func reservedSchemesAreRefusedUnlessTheUserAllowsThem() throws {
        var r = try registry([manifest("com.a.browser", schemes: ["HTTPS": .owner, "mine": .owner])])
        #expect(r.handlers(forScheme: "https").chosen == nil)
        #expect(r.handlers(forScheme: "https").candidates.first?.status == .reserved)
        let d = r.diagnostics.first { $0.code == .reservedScheme }
        #expect(d?.file == "/apps/com.a.browser.plist")
        #expect(d?.message.contains("courier default https com.a.browser") == true)
        try r.setDefault("com.a.browser", forScheme: "https")
        #expect(r.handlers(forScheme: "https").bundleIdentifiers == ["com.a.browser"])
        #expect(!r.diagnostics.contains { $0.code == .reservedScheme })
    }

    @Test func everyConflictIsReported() throws {
        let r = try registry([
            manifest("com.a.one", schemes: ["x": .owner]), manifest("com.a.two", schemes: ["x": .default]),
            manifest("com.a.three", schemes: ["x": .default]), manifest("com.a.solo", schemes: ["y": .owner]),
        ])
        let conflicts = r.diagnostics.filter { $0.code == .schemeConflict }
        #expect(conflicts.map(\.file).sorted() == ["/apps/com.a.three.plist", "/apps/com.a.two.plist"])
        #expect(conflicts.allSatisfy { $0.message.contains("com.a.one") })
    }

    @Test func documentTypeConflictsAreReported() throws {
        let r = try registry([
            manifest("com.a.one", documents: [("public.plain-text", .owner)]),
            manifest("com.a.two", documents: [("public.plain-text", .alternate)]),
            manifest("com.a.broad", documents: [("public.data", .alternate)]),
        ])
        let conflicts = r.diagnostics.filter { $0.code == .documentTypeConflict }
        #expect(conflicts.map(\.file) == ["/apps/com.a.two.plist"])
        #expect(conflicts.first?.message.contains("courier default --type public.plain-text") == true)
    }

    @Test func setDefaultRefusesAnAppThatDoesNotClaimTheScheme() throws {
        var r = try registry([manifest("com.a.one", schemes: ["x": .owner]), manifest("com.a.none", schemes: ["x": .none])])
        #expect(throws: RegistryError.self) { try r.setDefault("com.a.one", forScheme: "y") }
        #expect(throws: RegistryError.self) { try r.setDefault("com.a.none", forScheme: "x") }
        #expect(throws: RegistryError.self) { try r.setDefault("com.a.ghost", forScheme: "x") }
        do {
            try r.setDefault("com.a.one", forScheme: "y")
        } catch {
            #expect(error.code == .notACandidate)
        }
    }

    @Test func invalidSchemeQueryIsExplained() throws {
        let r = try registry([])
        #expect(r.handlers(forScheme: "1x").problem?.hasPrefix("invalid") == true)
        #expect(Registry.scheme(fromURLOrScheme: "TodoList://www.acme.com?Task#today") == "todolist")
        #expect(Registry.scheme(fromURLOrScheme: "todolist") == "todolist")
        #expect(Registry.scheme(fromURLOrScheme: "-rf") == nil)
    }

    @Test func unregisterForgetsTheAppAndItsClaims() throws {
        var r = try registry([manifest("com.a.one", schemes: ["x": .default]), manifest("com.a.two", schemes: ["x": .default])])
        let change = try r.unregister(bundleIdentifier: "com.a.one")
        #expect(change.removed == ["com.a.one"])
        #expect(change.schemes == ["x"])
        #expect(r.handlers(forScheme: "x").bundleIdentifiers == ["com.a.two"])
        try r.register(manifest("com.a.one", schemes: ["x": .default]))
        #expect(r.handlers(forScheme: "x").bundleIdentifiers == ["com.a.two", "com.a.one"])
        #expect(throws: RegistryError.self) { try r.unregister(bundleIdentifier: "com.a.ghost") }
    }

    @Test func registeringTheSameBundleIdentifierFromAnotherFileIsRefused() throws {
        var r = try registry([manifest("com.a.one", schemes: ["x": .default])])
        #expect(throws: RegistryError.self) { try r.register(manifest("com.a.one", path: "/elsewhere/one.plist")) }
        let change = try r.register(manifest("com.a.one", schemes: ["z": .owner]))
        #expect(change.updated == ["com.a.one"])
        #expect(r.handlers(forScheme: "x").bundleIdentifiers.isEmpty)
        #expect(r.handlers(forScheme: "z").bundleIdentifiers == ["com.a.one"])
    }

    @Test func typeHandlersFollowConformanceRankAndSpecificity() throws {
        var r = try registry([
            manifest("com.a.hex", documents: [("public.data", .alternate)]),
            manifest("com.a.text", documents: [("public.text", .default)]),
            manifest("com.a.plain", documents: [("public.plain-text", .default)]),
            manifest("com.a.images", documents: [("public.image", .owner)]),
        ])
        #expect(r.handlers(forType: "public.utf8-plain-text").bundleIdentifiers == ["com.a.plain", "com.a.text", "com.a.hex"])
        #expect(r.handlers(forType: "public.png").bundleIdentifiers == ["com.a.images", "com.a.hex"])
        #expect(r.handlers(forType: "public.pdf").bundleIdentifiers == ["com.a.hex"])
        #expect(r.documentType(of: "com.a.text", accepting: "public.json")?.name == "public.text")
        #expect(r.documentType(of: "com.a.images", accepting: "public.json") == nil)
        try r.setDefault("com.a.hex", forType: "public.text")
        #expect(r.handlers(forType: "public.json").bundleIdentifiers.first == "com.a.hex")
    }

    @Test func dumpJSONHasExactlyTheDocumentedShape() throws {
        let r = try registry([
            Manifest(bundleIdentifier: try BundleIdentifier("com.acme.todolist"), name: "To-Do", urlTypes: [URLTypeDeclaration(schemes: ["todolist"], rank: .owner)],
                     documentTypes: [DocumentTypeDeclaration(name: "Text", contentTypes: ["public.plain-text"], rank: .owner)], path: "/m/todo.plist"),
            manifest("com.z.rival", schemes: ["todolist": .default]),
        ])
        let json = try JSONSerialization.jsonObject(with: Data(RegistryDump(registry: r).json().utf8)) as! [String: Any]
        #expect(Set(json.keys) == ["applications", "schemes", "diagnostics"])
        let apps = json["applications"] as! [[String: Any]]
        #expect(Set(apps[0].keys) == ["bundle_id", "name", "schemes", "document_types", "manifest"])
        #expect(apps[0]["bundle_id"] as? String == "com.acme.todolist")
        #expect(apps[0]["manifest"] as? String == "/m/todo.plist")
        let doc = (apps[0]["document_types"] as! [[String: Any]])[0]
        #expect(Set(doc.keys) == ["name", "content_types", "rank"])
        #expect(doc["rank"] as? String == "Owner")
        #expect((json["schemes"] as! [String: [String]])["todolist"] == ["com.acme.todolist", "com.z.rival"])
        let diagnostics = json["diagnostics"] as! [[String: Any]]
        #expect(diagnostics.count == 1)
        #expect(Set(diagnostics[0].keys) == ["file", "key_path", "message"])
    }
}
