import BusTestSupport
import Foundation
import Testing

/// `courier default SCHEME|TYPE ID.desktop` and `courier handlers` with the desktop's own
/// applications, run as a user runs them: the real `courier`, a broker on a private session bus,
/// real desktop entries, and `xdg-mime` / `gio mime` reading what Courier wrote.
@Suite(.serialized, .enabled(if: InstallScriptTests.built, "courier and courierd are not built beside the tests"))
struct DesktopDefaultTests {
    let base = DesktopBrokerTests()
    let courierPath = InstallScriptTests.binDirectory + "/courier"

    /// A desktop application that records its argv and declares `types`; returns the file its argv
    /// is recorded in.
    func installDesktopApplication(_ setup: DesktopBrokerTests.Setup, named name: String, types: [String]) throws -> String {
        let output = setup.home.root + "/\(name)-argv"
        let program = try setup.home.makeRecorder(named: name, output: output)
        try setup.home.write("[Desktop Entry]\nType=Application\nName=\(name.capitalized)\nExec=\(program) %u\nMimeType=\(types.map { $0 + ";" }.joined())\n",
            to: setup.home.directories.applications + "/\(name).desktop")
        return output
    }

    func courier(_ arguments: [String], _ setup: DesktopBrokerTests.Setup) async throws -> BackgroundProcess.Completed {
        try await BackgroundProcess.run(courierPath, arguments, environment: setup.environment)
    }

    @Test func aDesktopApplicationAsDefaultGetsTheSchemeUntilACourierAppIsChosenAgain() async throws {
        let setup = try base.start()
        let fox = try installDesktopApplication(setup, named: "fox", types: ["x-scheme-handler/todolist"])
        try await base.startBroker(setup)
        #expect(try await base.waitForDefault("todolist", "courier-com.acme.recorder.desktop", environment: setup.environment))

        // Courier's app first (it is what Courier routes to), then the desktop's, marked.
        let both = try await courier(["handlers", "todolist"], setup)
        #expect(both.status == 0 && both.output == "com.acme.recorder\nfox.desktop (desktop)\n", "\(both)")

        let chose = try await courier(["default", "todolist", "fox.desktop"], setup)
        #expect(chose.status == 0 && chose.output.hasPrefix("fox.desktop (Fox, a desktop application) now handles todolist:"), "\(chose)")
        // Written as xdg-mime writes it: both desktop tools read it (once the broker's writer has
        // taken its own entry off the key).
        #expect(try await base.waitForDefault("todolist", "fox.desktop", environment: setup.environment))
        let gio = try await run("/usr/bin/gio", ["mime", "x-scheme-handler/todolist"], environment: setup.environment)
        #expect(gio.output.hasPrefix("Default application for “x-scheme-handler/todolist”: fox.desktop\n"), "\(gio.output)")

        // The running broker no longer routes todolist: `courier open` hands it to the desktop.
        let opened = try await courier(["open", "todolist://x/1"], setup)
        #expect(opened.status == 0, "\(opened)")
        #expect(await setup.home.recordedArguments(at: fox) == ["todolist://x/1"])
        #expect(await base.recorded(setup.record, count: 1, seconds: 0.5) == [])

        let listed = try await courier(["handlers", "todolist"], setup)
        #expect(listed.output == "fox.desktop (desktop, default)\n", "\(listed)")
        let explained = try await courier(["handlers", "todolist", "--explain"], setup)
        #expect(explained.output.contains("com.acme.recorder — not chosen: the user's default is the desktop's fox.desktop"), "\(explained)")
        let json = try await courier(["handlers", "todolist", "--json"], setup)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let rows = try #require(object["handlers"] as? [[String: Any]])
        #expect(object["mime_type"] as? String == "x-scheme-handler/todolist")
        #expect(rows.count == 1 && rows[0]["desktop_id"] as? String == "fox.desktop" && rows[0]["desktop"] as? Bool == true
            && rows[0]["desktop_default"] as? Bool == true && rows[0]["chosen"] as? Bool == true, "\(json.output)")
        let shown = try await courier(["default", "--show", "todolist"], setup)
        #expect(shown.output == "todolist: fox.desktop (desktop application)\n", "\(shown)")

        // A Courier app as the default again: the broker routes to it, and its entry is the
        // desktop's default again.
        let back = try await courier(["default", "todolist", "com.acme.recorder"], setup)
        #expect(back.status == 0, "\(back)")
        #expect(try await base.waitForDefault("todolist", "courier-com.acme.recorder.desktop", environment: setup.environment))
        #expect(try await courier(["open", "todolist://x/2"], setup).status == 0)
        #expect(await base.recorded(setup.record, count: 1) == ["todolist://x/2"])
    }

    /// A file type whose default is a desktop application goes to the desktop, though a Courier
    /// app declares the type; `--show` says the choice is in effect while `mimeapps.list` agrees.
    @Test func aFileTypeWhoseDefaultIsADesktopApplicationGoesToTheDesktop() async throws {
        let setup = try base.start()
        let manifest = setup.home.directories.dataHome + "/courier/manifests/com.acme.reader.plist"
        let plist: [String: Any] = [
            "CFBundleIdentifier": "com.acme.reader", "CFBundleName": "Reader",
            "CFBundleDocumentTypes": [["CFBundleTypeName": "Text", "LSItemContentTypes": ["public.plain-text"], "LSHandlerRank": "Owner"]],
            "CourierLaunchArguments": ["/bin/false"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: manifest))
        let editor = try installDesktopApplication(setup, named: "editor", types: ["text/plain"])
        let file = setup.home.root + "/notes.txt"
        try "buy milk\n".write(toFile: file, atomically: true, encoding: .utf8)

        let before = try await courier(["handlers", "--type", file], setup)
        #expect(before.output == "com.acme.reader\neditor.desktop (desktop)\n", "\(before)")
        let chose = try await courier(["default", "--type", "public.plain-text", "editor.desktop"], setup)
        #expect(chose.status == 0, "\(chose)")
        #expect(try await courier(["default", "--show", "--type", "public.plain-text"], setup).output
            == "type public.plain-text: editor.desktop (desktop application)\n")

        let opened = try await courier(["open", file], setup)
        #expect(opened.status == 0, "\(opened)")
        let received = await setup.home.recordedArguments(at: editor)
        #expect(received?.count == 1 && received?.first?.hasSuffix("/notes.txt") == true, "\(String(describing: received))")
        let inbox = setup.home.directories.dataHome + "/courier/containers/com.acme.reader/Documents/Inbox/notes.txt"
        #expect(!FileManager.default.fileExists(atPath: inbox), "the Courier app was given the file")
    }

    /// A desktop entry that is not installed, or does not declare the scheme or type, is refused
    /// with the reason and its exit status, and nothing is written; a default chosen for a desktop
    /// application survives `courier desktop --remove` (what `scripts/uninstall` runs), which says so.
    @Test func unknownOrUndeclaringDesktopEntriesAreRefusedAndADesktopDefaultOutlivesRemoval() async throws {
        let setup = try base.start()
        _ = try installDesktopApplication(setup, named: "web", types: ["text/html"])
        let list = "# mine\n[Default Applications]\ntext/html=other.desktop\n"
        try setup.home.write(list, to: setup.home.directories.mimeAppsList)
        let defaults = setup.home.directories.configHome + "/courier/defaults.json"
        // The shell completion of `courier default SCHEME …` offers the desktop's applications.
        let completion = try await courier(["---completion", "default", "--", "positional@0", "3", "2", "courier", "default", "todolist", "we"], setup)
        #expect(completion.status == 0 && completion.output.split(separator: "\n").contains("web.desktop"), "\(completion)")

        let missing = try await courier(["default", "todolist", "nothere.desktop"], setup)
        #expect(missing.status == 3 && missing.errors.contains("no desktop entry nothere.desktop is installed"), "\(missing)")
        let undeclared = try await courier(["default", "todolist", "web.desktop"], setup)
        #expect(undeclared.status == 65 && undeclared.errors.contains("web.desktop does not declare x-scheme-handler/todolist"), "\(undeclared)")
        let wrongType = try await courier(["default", "--type", "public.plain-text", "web.desktop"], setup)
        #expect(wrongType.status == 65 && wrongType.errors.contains("does not declare text/plain"), "\(wrongType)")
        let path = try await courier(["default", "todolist", "../web.desktop"], setup)
        #expect(path.status == 3 && path.errors.contains("is not a desktop file id"), "\(path)")
        #expect(setup.home.read(setup.home.directories.mimeAppsList) == Data(list.utf8), "a refused default changed mimeapps.list")
        #expect(!FileManager.default.fileExists(atPath: defaults))

        let html = try await courier(["default", "--type", "text/html", "web.desktop"], setup)
        #expect(html.status == 0, "\(html)")
        let query = try await run("/usr/bin/xdg-mime", ["query", "default", "text/html"], environment: setup.environment)
        #expect(query.output == "web.desktop\n")
        let handlers = try await courier(["handlers", "--type", "public.html"], setup)
        #expect(handlers.status == 0 && handlers.output == "web.desktop (desktop, default)\n", "\(handlers)")

        let removed = try await courier(["desktop", "--remove"], setup)
        #expect(removed.status == 0 && removed.output.contains("kept in mimeapps.list the defaults you chose for desktop applications: text/html=web.desktop"), "\(removed)")
        #expect(try await run("/usr/bin/xdg-mime", ["query", "default", "text/html"], environment: setup.environment).output == "web.desktop\n")
    }
}
