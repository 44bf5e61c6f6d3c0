import Testing
@testable import CourierManifest

/// `CourierAllowedCallers` (per URL type) and `CourierAllowedDropCallers` (top level): how the
/// parser reads them, and what it refuses — with the file, the key path and what to write.
@Suite struct CallerRuleTests {
    /// A manifest for com.acme.todolist claiming `todolist` (with `callers` inside its URL type)
    /// and `notes` (without), plus `extra` at the top level.
    func manifest(callers: String? = nil, extra: String = "") -> ManifestLoader.FileResult {
        let rule = callers.map { "<key>CourierAllowedCallers</key>\($0)" } ?? ""
        return parse(plist("""
            <key>CFBundleIdentifier</key><string>com.acme.todolist</string>
            <key>CFBundleURLTypes</key><array>
              <dict><key>CFBundleURLSchemes</key><array><string>todolist</string></array>\(rule)</dict>
              <dict><key>CFBundleURLSchemes</key><array><string>notes</string></array></dict>
            </array>
            <key>CourierLaunchArguments</key><array><string>/usr/bin/todolist</string></array>
            \(extra)
            """), path: "/apps/todolist.plist")
    }

    @Test func withoutTheKeysAnyoneMayCall() throws {
        let m = try #require(manifest().manifest)
        #expect(m.callers(forScheme: "todolist") == .anyone)
        #expect(m.dropCallers == .anyone)
        #expect(m.callers(forScheme: "todolist").admits(caller: "", app: m.bundleIdentifier.rawValue))
    }

    @Test func readsBundleIDsAndTheTwoWordsPerURLType() throws {
        let r = manifest(callers: "<array><string>com.acme.notes</string><string>com.8bit.bitwarden</string></array>",
                         extra: "<key>CourierAllowedDropCallers</key><string>courierapps</string>")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let m = try #require(r.manifest)
        let rule = m.callers(forScheme: "todolist")
        #expect(rule.entries == [.app("com.acme.notes"), .app("com.8bit.bitwarden")])
        #expect(rule.keyPath == "CFBundleURLTypes[0].CourierAllowedCallers")
        #expect(m.callers(forScheme: "notes") == .anyone)   // the other entry has no rule
        #expect(m.dropCallers.entries == [.courierApps])
        #expect(m.dropCallers.keyPath == "CourierAllowedDropCallers")
        #expect(try #require(manifest(callers: "<string>Anyone</string>").manifest).callers(forScheme: "todolist").admitsAnyone)
    }

    @Test func evaluatesEachKindOfEntry() {
        let app = "com.acme.todolist"
        let listed = CallerRule([.app("com.acme.notes")])
        #expect(listed.admits(caller: "com.acme.notes", app: app))
        #expect(!listed.admits(caller: "com.acme.mail", app: app))
        #expect(!listed.admits(caller: "", app: app))   // not a Courier app
        #expect(listed.admits(caller: app, app: app))   // the app itself, always
        let courier = CallerRule([.courierApps])
        #expect(courier.admits(caller: "com.acme.mail", app: app))
        #expect(!courier.admits(caller: "", app: app))
        #expect(CallerRule.anyone.admits(caller: "", app: app))
        // An empty caller never matches an entry, nor "the app itself".
        #expect(!CallerRule([.app("")]).admits(caller: "", app: ""))
        #expect(courier.description == "Courier apps only (not other processes)")
        #expect(CallerRule([.app("com.a.b"), .app("com.c.d")]).description == "only com.a.b, com.c.d")
    }

    @Test func refusesWhatItCannotReadNamingFileKeyAndFix() throws {
        let cases: [(String, String, String)] = [
            ("<array><string>courier apps</string></array>", "CFBundleURLTypes[0].CourierAllowedCallers[0]", "did you mean CourierApps?"),
            ("<array><string>*</string></array>", "CFBundleURLTypes[0].CourierAllowedCallers[0]", "did you mean Anyone?"),
            ("<array/>", "CFBundleURLTypes[0].CourierAllowedCallers", "remove the key to admit anyone"),
            ("<dict/>", "CFBundleURLTypes[0].CourierAllowedCallers", "expected an array of strings"),
            ("<true/>", "CFBundleURLTypes[0].CourierAllowedCallers", "<array><string>CourierApps</string></array>"),
            ("<array><integer>3</integer></array>", "CFBundleURLTypes[0].CourierAllowedCallers[0]", "expected a string"),
            ("<array><string>$(APP_ID)</string></array>", "CFBundleURLTypes[0].CourierAllowedCallers[0]", "unresolved build setting"),
            ("<array><string>notes</string></array>", "CFBundleURLTypes[0].CourierAllowedCallers[0]", "neither a bundle identifier"),
        ]
        for (value, keyPath, advice) in cases {
            let r = manifest(callers: value)
            #expect(r.manifest == nil, "\(value) must refuse the manifest")
            let d = try #require(r.diagnostic(.invalidCallerRule), "\(value)")
            #expect(d.severity == .error)
            #expect(d.file == "/apps/todolist.plist")
            #expect(d.keyPath == keyPath, "\(value): \(d.keyPath)")
            #expect(d.message.contains(advice), "\(value): \(d.message)")
            #expect(d.message.contains("the app is not registered"))
        }
    }

    @Test func refusesARuleInTheWrongPlace() throws {
        // Ignoring a misplaced rule would admit anyone: it is an error, saying where it belongs.
        let top = manifest(extra: "<key>CourierAllowedCallers</key><string>CourierApps</string>")
        #expect(top.manifest == nil)
        #expect(top.diagnostic(.invalidCallerRule)?.message.contains("inside each CFBundleURLTypes entry") == true)
        let inURLType = manifest(callers: "<string>CourierApps</string><key>CourierAllowedDropCallers</key><string>CourierApps</string>")
        #expect(inURLType.manifest == nil)
        #expect(inURLType.diagnostic(.invalidCallerRule)?.keyPath == "CFBundleURLTypes[0].CourierAllowedDropCallers")
        let inDocument = manifest(extra: """
            <key>CFBundleDocumentTypes</key><array><dict>
              <key>LSItemContentTypes</key><array><string>public.plain-text</string></array>
              <key>CourierAllowedDropCallers</key><string>CourierApps</string>
            </dict></array>
            """)
        #expect(inDocument.manifest == nil)
        let d = try #require(inDocument.diagnostic(.invalidCallerRule))
        #expect(d.keyPath == "CFBundleDocumentTypes[0].CourierAllowedDropCallers")
        #expect(d.message.contains("move it to the top level"))
    }

    @Test func warnsAboutEntriesThatChangeNothing() throws {
        let r = manifest(callers: "<array><string>Anyone</string><string>com.acme.notes</string></array>")
        let m = try #require(r.manifest)
        #expect(m.callers(forScheme: "todolist").admitsAnyone)
        #expect(r.diagnostic(.invalidCallerRule)?.severity == .warning)
        let twice = manifest(callers: "<array><string>com.acme.notes</string><string>com.acme.notes</string></array>")
        #expect(try #require(twice.manifest).callers(forScheme: "todolist").entries == [.app("com.acme.notes")])
        #expect(twice.diagnostic(.invalidCallerRule)?.keyPath == "CFBundleURLTypes[0].CourierAllowedCallers[1]")
    }

    @Test func theExplanationShowsEachCandidatesRule() throws {
        var todolist = try #require(manifest(callers: "<string>CourierApps</string>").manifest)
        todolist.path = "/apps/todolist.plist"
        var registry = Registry()
        _ = try registry.register(todolist)
        let text = registry.handlers(forScheme: "todolist").explanationText
        #expect(text.contains("1. com.acme.todolist — chosen"), "\(text)")
        #expect(text.contains("callers: Courier apps only (not other processes) (CFBundleURLTypes[0].CourierAllowedCallers)"), "\(text)")
        #expect(registry.handlers(forScheme: "notes").explanationText.contains("callers: anyone (no caller rule)"))
    }
}
