import BusTestSupport
import Courier
import DBus
import Foundation
import Testing

/// `courier share` against a real `courierd` on a private bus, with the older apps' manifests of
/// `OpenDocumentsTests` (a text editor, an image viewer, a PDF viewer) and a notes app that
/// declares a share activity of its own, all launched as `courier-test-app app` (it records the
/// URLs it opens, and the `share-activity` option). The terminal sheet runs on a real pty.
@Suite("Sharing", .serialized)
struct ShareCommandTests {
    static let notes = "com.example.notes"

    static func setup() async throws -> OpenDocumentsTests.Setup {
        try await OpenDocumentsTests.Setup { writer in
            try writer.todolist()
            try writer.write(notes, schemes: ["notes"], arguments: [Products.path("courier-test-app"), "app"], extra: [
                "CourierShareActivities": [[
                    "CourierActivityName": "add-note", "CourierActivityTitle": "Add to Notes",
                    "CourierActivityContentTypes": ["public.plain-text", "public.url"],
                ]],
            ])
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func ids(_ listing: [String: Any]) -> [String] {
        (listing["activities"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func theActivitiesListedAreThoseThatFitEveryItem() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let text = try await setup.courier(["share", setup.path("notes.txt"), "--list", "--json"])
        #expect(text.status == 0, "\(text)")
        // No clipboard tool in this session (no DISPLAY): no Copy.
        #expect(Self.ids(try Self.json(text.output)) == ["open-in:com.acme.todolist", "app:com.acme.todolist/add-tasks",
                                                          "open-in:\(OpenDocumentsTests.wrangler)", "app:\(Self.notes)/add-note", "save-to", "nearby", "link"])
        // A PNG and a PDF: no app takes both.
        let mixed = try await setup.courier(["share", setup.path("pic.png"), setup.path("paper.pdf"), "--list", "--json"])
        #expect(Self.ids(try Self.json(mixed.output)) == ["save-to", "nearby", "link"], "\(mixed)")
        // A URL goes to the app that claims its scheme, and (alone) to a nearby device as a message.
        let url = try await setup.courier(["share", "notes://today", "--list"])
        #expect(url.output == "open-in:\(Self.notes)\tOpen in notes\napp:\(Self.notes)/add-note\tAdd to Notes\nnearby\tSend to a nearby device\n", "\(url)")
    }

    @Test func whenNothingFitsTheRefusalIsNamed() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let none = try await setup.courier(["share", setup.path("pic.png"), setup.path("paper.pdf"), "--exclude", "save-to", "--exclude", "nearby", "--exclude", "link", "--list", "--json"])
        #expect(none.status == 3, "\(none)")
        let reply = try Self.json(none.output)
        #expect((reply["error"] as? [String: Any])?["name"] as? String == "org.courier.Error.NoActivity")
        #expect(none.error.contains("no activity accepts every item"), "\(none)")
        let web = try await setup.courier(["share", "https://example.org/", "--exclude", "nearby", "--list"])
        #expect(web.status == 3, "\(web)")
        let missing = try await setup.courier(["share", setup.path("nothing-here.txt"), "--list"])
        #expect(missing.status == 66 && missing.error.contains("neither an existing file nor a URL"), "\(missing)")
    }

    @Test func anAppsOwnActivityReceivesTheItemsWithItsName() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let shared = try await setup.courier(["share", "--text", "Buy milk", "--activity", "app:\(Self.notes)/add-note", "--json"])
        #expect(shared.status == 0, "\(shared)")
        #expect(setup.inbox(Self.notes) == ["Text.txt"])
        let inbox = setup.container(Self.notes) + "/Documents/Inbox"
        #expect(FileManager.default.contents(atPath: inbox + "/Text.txt") == Data("Buy milk".utf8))
        #expect(await setup.waitForDeliveries(Self.notes, count: 1) == ["file://\(inbox)/Text.txt share-activity=add-note"])
        // A URL of its scheme arrives as an open, with the activity named.
        let url = try await setup.courier(["share", "notes://today", "--activity", "app:\(Self.notes)/add-note"])
        #expect(url.status == 0 && url.output == "notes://today\n", "\(url)")
        #expect(await setup.waitForDeliveries(Self.notes, count: 2).last == "notes://today share-activity=add-note")
        // Open in: a plain drop.
        let open = try await setup.courier(["share", setup.path("notes.txt"), "--activity", "open-in:\(OpenDocumentsTests.wrangler)"])
        #expect(open.status == 0, "\(open)")
        #expect(setup.inbox(OpenDocumentsTests.wrangler) == ["notes.txt"])
    }

    @Test func aShareActivityTheAppDoesNotDeclareIsRefused() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        // A caller naming an activity the app never declared, or sending a type it does not take.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: setup.path("pic.png")))
        let call = { (activity: String) async throws in
            _ = try await setup.client.connection.call(
                "org.courier.Broker", path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "DropFiles",
                [.string(Self.notes), .fds([UnixFD(taking: dup(file.fileDescriptor))]), .strings(["pic.png"]), .vardict(["share-activity": .string(activity)])])
        }
        for (activity, says) in [("made-up", "declares no share activity 'made-up'"), ("add-note", "public.png")] {
            do {
                try await call(activity)
                Issue.record("the drop with share-activity \(activity) went through")
            } catch let error as DBusError {
                #expect(error.name == "org.courier.Error.NotPermitted" && error.message.contains(says), "\(error)")
            }
        }
        #expect(setup.inbox(Self.notes).isEmpty)
        #expect(setup.deliveries(Self.notes).isEmpty)
    }

    @Test func saveToWritesNewFilesAndNeverOverwrites() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let folder = setup.files.appendingPathComponent("saved").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for _ in 0..<2 {
            let saved = try await setup.courier(["share", setup.path("notes.txt"), "--text", "hello", "--activity", "save-to", "--folder", folder])
            #expect(saved.status == 0, "\(saved)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Text 2.txt", "Text.txt", "notes 2.txt", "notes.txt"])
        #expect(FileManager.default.contents(atPath: folder + "/notes 2.txt") == Data("milk\neggs\n".utf8))
        let noFolder = try await setup.courier(["share", setup.path("notes.txt"), "--activity", "save-to"])
        #expect(noFolder.status == 9 && noFolder.error.contains("needs a folder"), "\(noFolder)")
    }

    @Test func withoutATerminalNobodyCanBeAskedAndTheErrorSaysWhatToDo() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let asked = try await setup.courier(["share", setup.path("notes.txt"), "--json"])
        #expect(asked.status == 9, "\(asked)")
        #expect((try Self.json(asked.output)["error"] as? [String: Any])?["name"] as? String == "org.courier.Error.NobodyToAsk")
        #expect(asked.error.contains("--activity"), "\(asked)")
    }

    // MARK: - Copy, with the real clipboard tool on a real X server

    static let hasX = VirtualDisplay.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/xclip")

    /// Under Xvfb with `xclip` (scripts/bootstrap installs both): "Copy" is offered for text and
    /// URLs, and what it copies is what `xclip -o` reads back from the clipboard selection.
    @Test(.enabled(if: hasX, "needs Xvfb and xclip (scripts/bootstrap installs xvfb and xclip)"))
    func copyPutsTheTextOnTheRealClipboard() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let x = try await VirtualDisplay(folder: setup.files, environment: setup.environment)
        defer { x.stop() }
        setup.environment["DISPLAY"] = x.display
        setup.environment["PATH"] = (setup.environment["PATH"] ?? "") + ":/usr/bin"

        let listed = try await setup.courier(["share", "--text", "Buy milk", "--list"])
        #expect(listed.output.contains("copy\tCopy"), "\(listed)")
        let copied = try await setup.courier(["share", "--text", "Buy milk", "--text", "todolist://www.acme.com?Eggs", "--activity", "copy"])
        #expect(copied.status == 0, "\(copied)")
        let read = try await BackgroundProcess.run("/usr/bin/xclip", ["-selection", "clipboard", "-o"], environment: setup.environment)
        #expect(read.output == "Buy milk\ntodolist://www.acme.com?Eggs", "\(read)")
        // A file is not text: Copy is not offered for it.
        let file = try await setup.courier(["share", setup.path("notes.txt"), "--list"])
        #expect(!file.output.contains("copy\t"), "\(file)")
    }

    // MARK: - The desktop sheet (a notification with actions)

    /// Without a terminal, with a notification server that shows actions on the session bus: the
    /// activities are its actions (all but Save to…, which needs a folder), and the action the
    /// person invokes runs.
    @Test func withoutATerminalTheActivitiesAreANotificationsActionsAndTheOneInvokedRuns() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let server = try await TestNotificationServer(environment: setup.environment, folder: setup.files, answer: "open-in:\(OpenDocumentsTests.wrangler)")
        defer { server.stop() }
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--json"])
        #expect(shared.status == 0, "\(shared)")
        let result = try Self.json(shared.output)
        #expect((result["activity"] as? [String: Any])?["id"] as? String == "open-in:\(OpenDocumentsTests.wrangler)", "\(result)")
        #expect(setup.inbox(OpenDocumentsTests.wrangler) == ["notes.txt"])
        let shown = try #require(server.notifications.first, "\(server.calls)")
        let keys = (shown["actions"] as? [String] ?? []).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(keys == ["open-in:com.acme.todolist", "app:com.acme.todolist/add-tasks", "open-in:\(OpenDocumentsTests.wrangler)", "app:\(Self.notes)/add-note", "nearby"], "\(shown)")
        #expect(shown["summary"] as? String == "Share \(setup.path("notes.txt"))", "\(shown)")
        let id = try #require(shown["id"] as? Int)
        #expect(server.wasClosed(id), "the answered notification stayed: \(server.calls)")
    }

    @Test func aDismissedNotificationSharesNothingAndSaysSo() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let server = try await TestNotificationServer(environment: setup.environment, folder: setup.files, answer: "dismiss")
        defer { server.stop() }
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--json"])
        #expect(shared.status == 1, "\(shared)")
        #expect((try Self.json(shared.output)["error"] as? [String: Any])?["name"] as? String == "org.courier.Error.Dismissed", "\(shared)")
        #expect(setup.inbox(OpenDocumentsTests.wrangler).isEmpty && setup.inbox(Self.notes).isEmpty)
    }

    /// A notification server without actions cannot ask: `NobodyToAsk`, saying why.
    @Test func aNotificationServerWithoutActionsCannotAsk() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let server = try await TestNotificationServer(environment: setup.environment, folder: setup.files, capabilities: ["body"])
        defer { server.stop() }
        let asked = try await setup.courier(["share", setup.path("notes.txt")])
        #expect(asked.status == 9 && asked.error.contains("does not show actions") && asked.error.contains("--activity"), "\(asked)")
        #expect(server.notifications.isEmpty)
    }

    /// Another process of the user forges `ActionInvoked` for every likely id, with an offered
    /// key, while the real server dismisses after 3 s: only the server that shows the
    /// notification can answer, so nothing is shared.
    @Test func aForgedClickFromAnotherProcessOnTheBusChoosesNothing() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let server = try await TestNotificationServer(environment: setup.environment, folder: setup.files, answer: "dismiss", delay: 3)
        defer { server.stop() }
        let forging = try TestNotificationServer.startForger(key: "open-in:\(OpenDocumentsTests.wrangler)", seconds: 20, environment: setup.environment, folder: setup.files)
        defer { forging.signal(SIGTERM) }
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--json"])
        #expect(forging.exitStatus == nil, "the forger stopped early: \(forging.errors)")
        #expect(shared.status == 1, "a forged click shared: \(shared)")
        #expect(setup.inbox(OpenDocumentsTests.wrangler).isEmpty)
    }


    @Test func theTodolistSharesItsListLazilyAndOneTaskAsText() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        #expect(try await setup.courier(["open", "todolist://www.acme.com?Buy%20milk"]).status == 0)
        let folder = setup.files.appendingPathComponent("exported").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let list = try await runProduct("todolist", ["share", "--activity", "save-to", "--folder", folder], setup.environment)
        #expect(list.status == 0 && list.output == folder + "/Todo List.txt\n", "\(list)")
        let saved = String(decoding: FileManager.default.contents(atPath: folder + "/Todo List.txt") ?? Data(), as: UTF8.self)
        #expect(saved.hasPrefix("Buy milk — due ") && saved.hasSuffix("\n") && saved.count(where: { $0 == "\n" }) == 1, "\(saved)")
        // One task, as text, to another app's own activity.
        let task = try await runProduct("todolist", ["share", "--task", "1", "--activity", "app:\(Self.notes)/add-note"], setup.environment)
        #expect(task.status == 0, "\(task)")
        let text = String(decoding: FileManager.default.contents(atPath: setup.container(Self.notes) + "/Documents/Inbox/Text.txt") ?? Data(), as: UTF8.self)
        #expect(text == saved.dropLast(), "\(text)")
        let none = try await runProduct("todolist", ["share", "--task", "7"], setup.environment)
        #expect(none.status == 64 && none.error.contains("there is no task 7"), "\(none)")
    }

    /// The README's app-developer section shows the todolist's own share code, line for line
    /// (`Sources/todolist/ShareCommand.swift`, which the test above runs), so it cannot drift from
    /// what runs; scripts/readme-quickstart runs the `todolist share` lines under it.
    @Test func theReadmesShareCodeIsTheTodolistsOwn() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: repository.appendingPathComponent("Sources/todolist/ShareCommand.swift"), encoding: .utf8)
        let sourceLines = Set(source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let start = try #require(readme.range(of: "`todolist share` is the example"))
        let block = try #require(readme[start.upperBound...].range(of: "```swift\n"))
        let end = try #require(readme[block.upperBound...].range(of: "```"))
        let lines = readme[block.upperBound..<end.lowerBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.contains("application.share(") }, "\(lines)")
        for line in lines {
            #expect(sourceLines.contains(line), "a README line that Sources/todolist/ShareCommand.swift does not have: \(line)")
        }
    }

    // MARK: The terminal sheet, on a real pty

    /// Runs `courier ARGS` on a pty (python's `pty`), answering the sheet as `steps` say: `expect`
    /// waits for text, `remove` deletes a file, `choose` answers with the number of a title,
    /// `send` types a line. Returns the exit status and everything the terminal showed.
    static func onTerminal(_ setup: OpenDocumentsTests.Setup, _ arguments: [String], steps: [[String: String]]) async throws -> (status: Int32, screen: String) {
        let spec: [String: Any] = ["argv": [Products.path("courier")] + arguments, "env": setup.environment, "steps": steps]
        let specData = try JSONSerialization.data(withJSONObject: spec)
        let run = try await runProduct("python3", [PythonPeers.path("share_terminal.py"), String(decoding: specData, as: UTF8.self)], setup.environment, executable: PythonPeers.python)
        return (run.status, run.output + run.error)
    }


    @Test func onATerminalThePersonChooses() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let run = try await Self.onTerminal(setup, ["share", "--text", "Buy milk"], steps: [
            ["expect": "Choose 1-"], ["choose": "Add to Notes"],
        ])
        #expect(run.status == 0, "\(run.screen)")
        #expect(run.screen.contains("Share text “Buy milk”:"), "\(run.screen)")
        #expect(run.screen.contains(") Open in TextWrangler"), "\(run.screen)")
        #expect(setup.inbox(Self.notes) == ["Text.txt"])
        // Save to… asks for the folder.
        let folder = setup.files.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let saved = try await Self.onTerminal(setup, ["share", setup.path("notes.txt")], steps: [
            ["expect": "Choose 1-"], ["choose": "Save to…"], ["expect": "Folder to save into"], ["send": folder],
        ])
        #expect(saved.status == 0, "\(saved.screen)")
        #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == Data("milk\neggs\n".utf8))
    }

    @Test func dismissingTheTerminalSheetSharesNothing() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let run = try await Self.onTerminal(setup, ["share", setup.path("notes.txt")], steps: [["expect": "Choose 1-"], ["send": ""]])
        #expect(run.status == 1, "\(run.screen)")
        #expect(run.screen.contains("cancelled"), "\(run.screen)")
        #expect(setup.inbox(OpenDocumentsTests.wrangler).isEmpty)
    }

    @Test func aFileRemovedBeforeTheChoiceIsRefusedAndNothingIsShared() async throws {
        let setup = try await Self.setup()
        defer { setup.tearDown() }
        let victim = setup.path("paper.pdf")
        let run = try await Self.onTerminal(setup, ["share", setup.path("notes.txt"), victim], steps: [
            ["expect": "Choose 1-"], ["remove": victim], ["choose": "Save to…"], ["expect": "Folder"], ["send": setup.files.path],
        ])
        #expect(run.status == 10, "\(run.screen)")
        #expect(run.screen.contains("was removed before the choice was made; nothing was shared"), "\(run.screen)")
        #expect(!FileManager.default.fileExists(atPath: setup.path("notes 2.txt")))
    }
}
