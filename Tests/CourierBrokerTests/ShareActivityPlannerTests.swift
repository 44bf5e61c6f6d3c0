import CourierBroker
import CourierManifest
import CourierNames
import Testing

/// The share sheet's list: an activity is offered only when it accepts every item, by the
/// registry's type conformance (the drop's rules), the app's schemes for URLs and its caller rules.
@Suite struct ShareActivityPlannerTests {
    static func registry() throws -> Registry {
        var registry = Registry()
        _ = try registry.register(Manifest(bundleIdentifier: try BundleIdentifier("com.example.editor"), name: "Editor", documentTypes: [
            DocumentTypeDeclaration(name: "Text", contentTypes: ["public.plain-text"], role: .editor),
        ], path: "/m/editor.plist"))
        _ = try registry.register(Manifest(bundleIdentifier: try BundleIdentifier("com.example.viewer"), name: "Viewer", documentTypes: [
            DocumentTypeDeclaration(name: "Images", contentTypes: ["public.image"], role: .viewer),
        ], path: "/m/viewer.plist"))
        var notes = Manifest(bundleIdentifier: try BundleIdentifier("com.example.notes"), name: "Notes",
                             urlTypes: [URLTypeDeclaration(schemes: ["notes"])], path: "/m/notes.plist")
        notes.shareActivities = [ShareActivityDeclaration(name: "add-note", title: "Add to Notes", contentTypes: ["public.text", "public.url"])]
        _ = try registry.register(notes)
        return registry
    }

    static let text = ShareItem(kind: .text, typeIdentifier: ShareItem.textType)
    static let png = ShareItem(kind: .file, typeIdentifier: "public.png")
    static let markdown = ShareItem(kind: .file, typeIdentifier: "net.daringfireball.markdown")

    func ids(_ items: [ShareItem], session: ShareActivityPlanner.Session = .init(hasClipboard: true, hasNearby: true),
             excluding: Set<String> = [], admits: @escaping @Sendable (Manifest, CallerPolicy.Door) -> Bool = { _, _ in true }) throws -> [String] {
        ShareActivityPlanner(registry: try Self.registry(), admits: admits).activities(for: items, session: session, excluding: excluding).map(\.id)
    }

    @Test func textGoesToTheAppsThatAcceptItAndToTheClipboard() throws {
        let text = try ids([Self.text]); #expect(text == ["open-in:com.example.editor", "app:com.example.notes/add-note", "copy", "save-to", "nearby"])
    }

    @Test func everyItemMustFit() throws {
        // Markdown conforms to plain text: the editor takes it; a PNG only the viewer takes.
        #expect(try ids([Self.markdown]) == ["open-in:com.example.editor", "app:com.example.notes/add-note", "save-to", "nearby", "link"])
        #expect(try ids([Self.png]) == ["open-in:com.example.viewer", "save-to", "nearby", "link"])
        #expect(try ids([Self.markdown, Self.png]) == ["save-to", "nearby", "link"])
    }

    @Test func aURLNeedsAnAppThatClaimsItsScheme() throws {
        let notesURL = ShareItem(kind: .url, typeIdentifier: ShareItem.urlType, scheme: "notes")
        let web = ShareItem(kind: .url, typeIdentifier: ShareItem.urlType, scheme: "https")
        #expect(try ids([notesURL]) == ["open-in:com.example.notes", "app:com.example.notes/add-note", "copy", "nearby"])
        #expect(try ids([web]) == ["copy", "nearby"])
        #expect(try ids([web], session: .init()) == [])
    }

    /// One text or URL goes to a nearby device as a LocalSend text message; among other items,
    /// a URL cannot travel as a file, and several texts are not one message.
    @Test func oneTextOrURLIsOfferedNearbyAsAMessageButNotAmongOtherItems() throws {
        let web = ShareItem(kind: .url, typeIdentifier: ShareItem.urlType, scheme: "https")
        #expect(try ids([web]).contains("nearby"))
        #expect(try ids([Self.text]).contains("nearby"))
        #expect(try !ids([web, Self.png]).contains("nearby"))
        #expect(try !ids([web, web]).contains("nearby"))
        #expect(try !ids([Self.text, Self.text]).contains("nearby"))
        #expect(try !ids([web], session: .init(hasClipboard: true, hasNearby: false)).contains("nearby"))
    }

    @Test func exclusionsByKindAndById() throws {
        #expect(try ids([Self.text], excluding: ["copy", "save-to", "open-in", "nearby"]) == ["app:com.example.notes/add-note"])
        #expect(try ids([Self.text], excluding: ["app:com.example.notes/add-note", "app"]) == ["open-in:com.example.editor", "copy", "save-to", "nearby"])
    }

    @Test func anAppWhoseCallerRulesRefuseTheCallerIsNotOffered() throws {
        let offered = try ids([Self.text]) { app, door in !(app.bundleIdentifier.rawValue == "com.example.editor" && door == .drop) }
        #expect(!offered.contains("open-in:com.example.editor"))
        #expect(offered.contains("app:com.example.notes/add-note"))
    }
}
