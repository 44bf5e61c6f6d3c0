import BusTestSupport
import Courier
import Foundation
import Testing
import CourierTools

/// `courier handlers` and `courier dump` answer from the running broker — a real `courierd` on a
/// private bus — so a manifest registered at run time from outside the CLI's manifest folders, or
/// an app unregistered from the broker, shows as the broker routes; with no broker they read the
/// folders on disk, say so in one line on stderr, and start none.
@Suite("Registry commands ask the broker", .serialized)
struct RegistryCommandsBrokerTests {
    /// A broker with the todolist from the fixture's folder, and the CLI's environment with its own
    /// manifest folder (`COURIER_MANIFEST_PATH`), which `prepare` fills and the broker never reads.
    static func start(_ prepare: (URL) throws -> Void = { _ in }, broker apps: (BrokerFixture.ManifestWriter) throws -> Void = { try $0.todolist() }) async throws
        -> (daemon: BrokerCrashFaultTests.Daemon, client: BrokerToolClient, local: URL, environment: [String: String]) {
        let daemon = try BrokerCrashFaultTests.Daemon(configure: apps)
        let client = BrokerToolClient(connection: try daemon.bus.connect())
        let local = daemon.bus.directory.appendingPathComponent("cli-manifests", isDirectory: true)
        var environment = daemon.environment
        environment["COURIER_MANIFEST_PATH"] = local.path
        do {
            try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
            try prepare(local)
            try await daemon.start(client)
        } catch {
            stop(daemon, client)
            throw error
        }
        return (daemon, client, local, environment)
    }

    static func stop(_ daemon: BrokerCrashFaultTests.Daemon, _ client: BrokerToolClient) {
        client.connection.close()
        daemon.tearDown(marker: daemon.manifests.path)
    }

    @Test func handlersAndDumpFollowTheBrokerNotTheLocalFolders() async throws {
        // The broker reads the fixture's folder; the CLI's own folders (COURIER_MANIFEST_PATH) are empty.
        let (daemon, client, local, environment) = try await Self.start()
        defer { Self.stop(daemon, client) }

        // Registered at run time through `courier register`, from a folder neither side reads.
        let extra = daemon.bus.directory.appendingPathComponent("extra", isDirectory: true)
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: extra).write("com.acme.echo", schemes: ["echo"], arguments: ["/bin/true"])
        let register = try await runProduct("courier", ["register", extra.appendingPathComponent("com.acme.echo.plist").path], environment)
        #expect(register.status == 0, "\(register.error)")

        let echo = try await runProduct("courier", ["handlers", "echo://x"], environment)
        #expect(echo.status == 0 && echo.output == "com.acme.echo\n", "\(echo)")
        let todolist = try await runProduct("courier", ["handlers", "todolist"], environment)
        #expect(todolist.status == 0 && todolist.output == "com.acme.todolist\n", "\(todolist)")
        let explained = try await runProduct("courier", ["handlers", "echo", "--explain"], environment)
        #expect(explained.status == 0 && explained.output.contains("com.acme.echo"), "\(explained)")
        let dump = try await runProduct("courier", ["dump", "--json"], environment)
        #expect(dump.status == 0 && dump.error.isEmpty, "\(dump.error)")
        #expect(dump.output.contains("\"bundle_id\":\"com.acme.echo\"") && dump.output.contains("\"bundle_id\":\"com.acme.todolist\""), "\(dump.output)")

        // Unregistered from the broker: gone from both answers, although its file is still in the folder.
        #expect(try await runProduct("courier", ["unregister", "com.acme.todolist"], environment).status == 0)
        let gone = try await runProduct("courier", ["handlers", "todolist"], environment)
        #expect(gone.status == 3 && gone.output.isEmpty && gone.error.contains("no app can handle scheme 'todolist'"), "\(gone)")
        let after = try await runProduct("courier", ["dump"], environment)
        // The registry part lists echo only; the broker's log below it says who removed todolist.
        let registryPart = after.output.components(separatedBy: "recent registry changes").first ?? ""
        #expect(after.status == 0 && registryPart.contains("com.acme.echo") && !registryPart.contains("com.acme.todolist"), "\(after.output)")
        #expect(after.output.contains("registry changed by Unregister from pid") && after.output.contains("removed com.acme.todolist"), "\(after.output)")

        // No broker: the folders on disk, one note on stderr, and no broker started. The CLI's folder
        // holds only what `courier register` installed there (the first COURIER_MANIFEST_PATH folder,
        // where a broker of this environment reads it again): echo, not the broker's todolist.
        #expect(FileManager.default.fileExists(atPath: local.appendingPathComponent("com.acme.echo.plist").path))
        daemon.kill9()
        let offline = try await runProduct("courier", ["handlers", "echo"], environment)
        #expect(offline.status == 0 && offline.output == "com.acme.echo\n", "\(offline)")
        #expect(offline.error.hasPrefix("courier handlers: no broker is running; answering from the manifest folders on disk\n"), "\(offline.error)")
        let offlineTodolist = try await runProduct("courier", ["handlers", "todolist"], environment)
        #expect(offlineTodolist.status == 3, "\(offlineTodolist)")
        let offlineDump = try await runProduct("courier", ["dump", "--json"], environment)
        #expect(offlineDump.status == 0 && offlineDump.output.contains("com.acme.echo") && !offlineDump.output.contains("com.acme.todolist"), "\(offlineDump.output)")
        #expect(offlineDump.error == "courier dump: no broker is running; answering from the manifest folders on disk\n")
        #expect(await client.brokerIsRunning() == false)
    }

    /// `courier default` and `courier handlers --type` with a broker running: the broker decides
    /// (`SetDefault`, `HandlersForFile`), so an app only it knows (registered at run time) can be
    /// made the default, an app only the CLI's folders know cannot, and a file is typed by its
    /// content as a drop of it would be.
    @Test func defaultsAndFileTypesAreTheBrokersAnswer() async throws {
        // Known to the CLI's folders only: the broker never read it.
        let (daemon, client, _, environment) = try await Self.start { local in
            try BrokerFixture.ManifestWriter(folder: local).write("com.acme.localonly", schemes: ["todolist"], arguments: ["/bin/true"])
        }
        defer { Self.stop(daemon, client) }
        let extra = daemon.bus.directory.appendingPathComponent("extra", isDirectory: true)
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: extra).write("com.acme.notes", schemes: ["todolist"], arguments: ["/bin/true"])
        let register = try await runProduct("courier", ["register", extra.appendingPathComponent("com.acme.notes.plist").path], environment)
        #expect(register.status == 0, "\(register.error)")

        let set = try await runProduct("courier", ["default", "todolist", "com.acme.notes"], environment)
        #expect(set.status == 0 && set.output == "com.acme.notes now handles todolist:\n", "\(set)")
        #expect(try await client.handlers(for: "todolist:x").first == "com.acme.notes", "the broker routes by it at once")
        let shown = try await runProduct("courier", ["default", "--show", "todolist"], environment)
        #expect(shown.status == 0 && shown.output == "todolist: com.acme.notes\n", "\(shown)")
        let localOnly = try await runProduct("courier", ["default", "todolist", "com.acme.localonly"], environment)
        #expect(localOnly.status == 3 && localOnly.error.contains("com.acme.localonly"), "only the broker's registry counts: \(localOnly)")
        let unset = try await runProduct("courier", ["default", "--unset", "todolist"], environment)
        #expect(unset.status == 0 && unset.output.hasPrefix("todolist: no longer defaults to com.acme.notes"), "\(unset)")
        #expect(try await client.handlers(for: "todolist:x").first == "com.acme.todolist")

        // A PNG named .txt: the broker reads it through the descriptor and finds a PNG.
        let photo = daemon.bus.directory.appendingPathComponent("photo.txt")
        try Data(SampleContent.png).write(to: photo)
        let typed = try await runProduct("courier", ["handlers", "--type", photo.path, "--explain"], environment)
        #expect(typed.output.hasPrefix("\(photo.path): public.png — by its content"), "\(typed)")
        // No Courier app here takes a PNG: only the desktop's applications may be listed (exit 3 when none).
        let typedLines = typed.output.split(separator: "\n").dropFirst()
        #expect(!typed.output.contains("com.acme."), "\(typed)")
        #expect(typedLines.contains { $0.hasPrefix("desktop: ") } ? typed.status == 0 : typed.status == 3, "\(typed)")
        let text = try await runProduct("courier", ["handlers", "--type", "public.plain-text"], environment)
        let textLines = text.output.split(separator: "\n")
        #expect(text.status == 0 && textLines.first == "com.acme.todolist" && textLines.dropFirst().allSatisfy { $0.contains("(desktop") }, "\(text)")
        let invalid = try await runProduct("courier", ["handlers", "--type", "not a type"], environment)
        #expect(invalid.status == 65, "\(invalid)")
    }

    /// A manifest exporting `com.acme.note` (a kind of plain text, `.acmenote`, `mimeType`) and
    /// taking it as a document.
    static func noteApp(mimeType: String) -> [String: Any] {
        ["UTExportedTypeDeclarations": [["UTTypeIdentifier": "com.acme.note", "UTTypeConformsTo": ["public.plain-text"],
                                         "UTTypeTagSpecification": ["public.filename-extension": ["acmenote"], "public.mime-type": [mimeType]]]],
         "CFBundleDocumentTypes": [["CFBundleTypeName": "Note", "LSItemContentTypes": ["com.acme.note"], "LSHandlerRank": "Owner"]]]
    }

    /// `courier handlers --type` with a broker running prints the broker's `HandlersForFile` alone:
    /// the type found, its MIME type, what each app matched. The CLI's own manifest folder declares
    /// the same type with another MIME type, and it does not count. Given the broker's folder as
    /// `--manifests`, the CLI makes the same decision itself and prints the same, for a file typed
    /// by its content, one by its name, a folder, a MIME type and type identifiers.
    @Test func handlersForATypeAreTheBrokersAndTheFoldersGiveTheSameAnswer() async throws {
        let (daemon, client, _, environment) = try await Self.start({ local in
            try BrokerFixture.ManifestWriter(folder: local).write("com.acme.localnotes", schemes: ["localnotes"], arguments: ["/bin/true"],
                                                                  extra: Self.noteApp(mimeType: "application/x-local-note"))
        }, broker: {
            try $0.todolist()
            try $0.write("com.acme.notes", schemes: ["notes"], arguments: ["/bin/true"], extra: Self.noteApp(mimeType: "application/x-acme-note"))
        })
        defer { Self.stop(daemon, client) }
        let photo = daemon.bus.directory.appendingPathComponent("photo.txt")
        try Data(SampleContent.png).write(to: photo)
        let note = daemon.bus.directory.appendingPathComponent("groceries.acmenote")
        try "milk\n".write(to: note, atomically: true, encoding: .utf8)

        let broker = try await runProduct("courier", ["handlers", "--type", "com.acme.note", "--json"], environment)
        #expect(broker.status == 0 && broker.error.isEmpty, "\(broker)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(broker.output.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "com.acme.note" && object["mime_type"] as? String == "application/x-acme-note", "the broker's MIME type: \(broker.output)")
        let first = (object["handlers"] as? [[String: Any]])?.first
        #expect(first?["bundle_id"] as? String == "com.acme.notes" && first?["matched_type"] as? String == "com.acme.note", "\(broker.output)")

        let text = try await runProduct("courier", ["handlers", "--type", note.path, "--json"], environment)
        let textObject = try #require(try JSONSerialization.jsonObject(with: Data(text.output.utf8)) as? [String: Any])
        let rows = (textObject["handlers"] as? [[String: Any]] ?? []).filter { $0["bundle_id"] != nil }
        #expect(rows.map { $0["bundle_id"] as? String } == ["com.acme.notes", "com.acme.todolist"], "\(text.output)")
        #expect(rows.map { $0["matched_type"] as? String } == ["com.acme.note", "public.plain-text"], "each app with what it declared: \(text.output)")

        for argument in [photo.path, note.path, daemon.bus.directory.path, "text/plain", "application/x-acme-note", "public.plain-text", "com.acme.note", "not a type"] {
            for mode in [["--json"], ["--explain"], []] {
                let asked = ["handlers", "--type", argument] + mode
                let fromBroker = try await runProduct("courier", asked, environment)
                let fromFolder = try await runProduct("courier", asked + ["--manifests", daemon.manifests.path], environment)
                #expect(fromBroker.status == fromFolder.status && fromBroker.output == fromFolder.output && fromBroker.error == fromFolder.error,
                        "\(asked): broker \(fromBroker), folder \(fromFolder)")
            }
        }
    }
}
