import CourierManifest
import Testing

/// `CourierShareActivities`: an app's own share activities, read like the other keys — a bad entry
/// is dropped with a warning naming its key path, the rest of the manifest is kept.
@Suite struct ShareActivitiesKeyTests {
    func parse(_ activities: PropertyListValue) -> ManifestParser.Result {
        let plist: [String: PropertyListValue] = ["CFBundleIdentifier": .string("com.example.notes"), "CourierShareActivities": activities]
        return ManifestParser().parse(.dictionary(plist), path: "/m/notes.plist")
    }

    func entry(_ name: String, _ title: String, _ types: [String]) -> PropertyListValue {
        .dictionary(["CourierActivityName": .string(name), "CourierActivityTitle": .string(title),
                     "CourierActivityContentTypes": .array(types.map { .string($0) })])
    }

    @Test func declaredActivitiesAreRead() {
        let result = parse(.array([entry("add-note", "Add to Notes", ["public.plain-text", "public.url"])]))
        #expect(result.diagnostics.isEmpty)
        #expect(result.manifest?.shareActivities == [ShareActivityDeclaration(name: "add-note", title: "Add to Notes", contentTypes: ["public.plain-text", "public.url"])])
    }

    @Test func badEntriesAreDroppedWithTheirKeyPath() {
        let result = parse(.array([
            entry("", "No name", ["public.text"]),
            entry("bad name!", "Spaces", ["public.text"]),
            entry("no-types", "No types", []),
            entry("spoof", "Open \u{202E}txt.exe", ["public.text"]),   // bidi override in the title
            entry("ok", "Fine", ["public.text"]),
            entry("ok", "Twice", ["public.text"]),
            .string("not a dictionary"),
        ]))
        #expect(result.manifest?.shareActivities.map(\.name) == ["ok"])
        let paths = result.diagnostics.map(\.keyPath)
        #expect(paths.contains("CourierShareActivities[0].CourierActivityName"))
        #expect(paths.contains("CourierShareActivities[1].CourierActivityName"))
        #expect(paths.contains("CourierShareActivities[2].CourierActivityContentTypes"))
        #expect(paths.contains("CourierShareActivities[3].CourierActivityTitle"))
        #expect(paths.contains("CourierShareActivities[5].CourierActivityName"))
        #expect(paths.contains("CourierShareActivities[6]"))
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }
}
