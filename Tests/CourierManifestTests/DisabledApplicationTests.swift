@testable import CourierManifest
import CourierTypes
import Foundation
import Testing

/// `courier disable`: a disabled app stays registered but is never chosen; its schemes and types
/// fall to the next candidate as if it were not registered, and `--explain` says why.
@Suite struct DisabledApplicationTests {
    func registry(_ manifests: [Manifest]) throws -> Registry {
        try RegistryTests().registry(manifests)
    }

    @Test func aDisabledAppIsNeverChosenAndTheExplanationSaysWhy() throws {
        var r = try registry([manifest("com.a.own", schemes: ["x": .owner], documents: [("public.plain-text", .owner)]),
                              manifest("com.a.alt", schemes: ["x": .alternate], documents: [("public.plain-text", .alternate)])])
        #expect(r.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.a.own")
        var preferences = r.preferences
        preferences.disabled = ["com.a.own"]
        let change = r.replacePreferences(preferences)
        // Every scheme and type it claims changed, and so did the apps that gained or lost them.
        #expect(change.schemes == ["x"] && change.types == ["public.plain-text"])
        #expect(change.updated == ["com.a.alt", "com.a.own"])
        let h = r.handlers(forScheme: "x")
        #expect(h.chosen?.bundleIdentifier == "com.a.alt")
        #expect(h.bundleIdentifiers == ["com.a.alt"])
        #expect(h.candidates.last?.status == .disabled)
        #expect(h.explanationText.contains("com.a.own — not routed to: the user disabled it (`courier enable com.a.own` takes it back)"))
        #expect(r.handlers(forType: "public.plain-text").chosen?.bundleIdentifier == "com.a.alt")
        #expect(r.application(bundleIdentifier: "com.a.own") != nil)
    }

    @Test func theDisabledListIsSavedBesideTheDefaultsAndReadBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disabled-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = RegistryStateStore(folder: folder)
        try store.save(preferences: RegistryPreferences(schemeDefaults: ["x": "com.a.alt"], disabled: ["com.a.own"]))
        let loaded = store.load()
        #expect(loaded.preferences.disabled == ["com.a.own"] && loaded.preferences.schemeDefaults == ["x": "com.a.alt"])
        #expect(loaded.diagnostics.isEmpty)
        // A defaults.json written before the list existed still loads.
        try Data(#"{"schemes":{"x":"com.a.alt"}}"#.utf8).write(to: URL(fileURLWithPath: store.defaultsPath))
        #expect(store.load().preferences.disabled.isEmpty && store.load().diagnostics.isEmpty)
    }
}
