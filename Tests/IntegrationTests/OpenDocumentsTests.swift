import BusTestSupport
import Courier
import Foundation
import Testing
import CourierTools

/// `courier open FILE…` and `courier drop` without `--to` against a real `courierd` on a private
/// bus, with real files of several types (text, PNG, PDF, a PNG whose name says text, bytes nobody
/// declares) and apps whose manifests are shaped like real older apps
/// (`Tests/Fixtures/legacy-manifests`: document types with only `CFBundleTypeExtensions` and
/// `CFBundleTypeMIMETypes`), each launched as `courier-test-app app`, which records the URLs it
/// is asked to open.
@Suite("Opening documents", .serialized)
struct OpenDocumentsTests {
    static let skim = "net.sourceforge.skim-app.skim"
    static let xee = "org.xeeapp.Xee"
    static let wrangler = "com.barebones.textwrangler"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/legacy-manifests")

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                               0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    static let pdf = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"

    /// A broker with the older apps' manifests, real files, and helpers to read what the apps got.
    final class Setup: @unchecked Sendable {
        let daemon: BrokerCrashFaultTests.Daemon
        let client: BrokerToolClient
        let files: URL
        var environment: [String: String]

        /// `fixtures`: legacy manifests to register (file names in Tests/Fixtures/legacy-manifests).
        init(fixtures: [String] = ["net.sourceforge.skim-app.skim.plist", "org.xeeapp.xee.plist", "com.barebones.textwrangler.plist"],
             desktopEntries: Bool = false, courierd extra: [String] = [], configure: (BrokerFixture.ManifestWriter) throws -> Void = { _ in }) async throws {
            daemon = try BrokerCrashFaultTests.Daemon(desktopEntries: desktopEntries) { writer in
                for name in fixtures { try OpenDocumentsTests.install(name, in: writer.folder) }
                try configure(writer)
            }
            client = BrokerToolClient(connection: try daemon.bus.connect())
            environment = daemon.environment
            files = daemon.bus.directory.appendingPathComponent("files", isDirectory: true)
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try Data("milk\neggs\n".utf8).write(to: files.appendingPathComponent("notes.txt"))
            try Data(OpenDocumentsTests.png).write(to: files.appendingPathComponent("pic.png"))
            try Data(OpenDocumentsTests.pdf.utf8).write(to: files.appendingPathComponent("paper.pdf"))
            try Data(OpenDocumentsTests.png).write(to: files.appendingPathComponent("photo.txt"))   // a name that lies
            try Data([0, 1, 2, 3, 0xFE, 0xFF, 0x7F, 0x00]).write(to: files.appendingPathComponent("blob.bin"))
            try await daemon.start(client, extra: extra)
        }

        func path(_ name: String) -> String { files.appendingPathComponent(name).path }

        func container(_ bundleID: String) -> String {
            "\(environment["XDG_DATA_HOME"]!)/courier/containers/\(bundleID)"
        }

        /// The files in an app's Inbox.
        func inbox(_ bundleID: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: container(bundleID) + "/Documents/Inbox")) ?? []).sorted()
        }

        /// The URLs the app was asked to open, in order (its `deliveries` file).
        func deliveries(_ bundleID: String) -> [String] {
            let text = (try? String(contentsOfFile: container(bundleID) + "/deliveries", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init)
        }

        /// Waits (bounded) until the app has recorded `count` deliveries.
        func waitForDeliveries(_ bundleID: String, count: Int) async -> [String] {
            for _ in 0..<400 where deliveries(bundleID).count < count {
                try? await Task.sleep(for: .milliseconds(25))
            }
            return deliveries(bundleID)
        }

        func courier(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            try await runProduct("courier", arguments, environment)
        }

        /// Stops the broker and exactly the apps it launched here (each recorder wrote its pid in
        /// its container's `launches`), never another suite's processes.
        func tearDown() {
            client.connection.close()
            let containers = "\(environment["XDG_DATA_HOME"]!)/courier/containers"
            let apps = (try? FileManager.default.contentsOfDirectory(atPath: containers)) ?? []
            let pids = apps.flatMap { app in
                ((try? String(contentsOfFile: "\(containers)/\(app)/launches", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
            }
            for pid in pids { kill(pid, SIGKILL) }
            daemon.tearDown(marker: daemon.manifests.path)
        }
    }

    /// Copies a legacy fixture into `folder`, launched as the recorder app.
    static func install(_ name: String, in folder: URL) throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
        guard var plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        plist["CourierLaunchArguments"] = [Products.path("courier-test-app"), "app"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: folder.appendingPathComponent(name))
    }

    @Test func eachFileOpensInTheAppForItsTypeThroughItsInbox() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        // Through the static front (it hands files to courier-tool), with --wait: handled when it returns.
        let opened = try await setup.courier(["open", "--wait", setup.path("notes.txt"), setup.path("pic.png"),
                                              "file://" + setup.path("paper.pdf"), setup.path("photo.txt")])
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.output.isEmpty && opened.error.isEmpty, "\(opened)")

        #expect(setup.inbox(Self.wrangler) == ["notes.txt"])
        #expect(setup.inbox(Self.xee) == ["photo.txt", "pic.png"])   // a PNG named .txt is a PNG
        #expect(setup.inbox(Self.skim) == ["paper.pdf"])
        let xeeInbox = setup.container(Self.xee) + "/Documents/Inbox"
        #expect(setup.deliveries(Self.xee) == ["file://\(xeeInbox)/pic.png", "file://\(xeeInbox)/photo.txt"])
        #expect(setup.deliveries(Self.skim) == ["file://\(setup.container(Self.skim))/Documents/Inbox/paper.pdf"])
        #expect(setup.deliveries(Self.wrangler).count == 1)
        #expect(FileManager.default.contents(atPath: setup.container(Self.skim) + "/Documents/Inbox/paper.pdf") == Data(Self.pdf.utf8))
        // The originals are where they were: a copy went to each Inbox.
        #expect(FileManager.default.fileExists(atPath: setup.path("paper.pdf")))
    }

    @Test func withoutWaitTheCommandReturnsOnceTheFileIsInTheInbox() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let opened = try await setup.courier(["open", setup.path("paper.pdf"), "--json"])
        #expect(opened.status == 0, "\(opened)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(opened.output.utf8)) as? [String: Any])
        #expect(reply["bundle_id"] as? String == Self.skim)
        #expect(reply["type"] as? String == "com.adobe.pdf")
        #expect(reply["waited"] as? Bool == false)
        #expect(reply["sent"] as? Bool == true && reply["handled"] == nil)   // not waited for: not known
        let path = try #require(reply["path"] as? String)
        #expect(FileManager.default.contents(atPath: path) == Data(Self.pdf.utf8))
        // The app is still told to open it.
        #expect(await setup.waitForDeliveries(Self.skim, count: 1) == ["file://" + path])
    }

    @Test func theAppCanBeChosenByBundleIDOrNameAndMustAcceptTheType() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let byName = try await setup.courier(["open", "-W", "-a", "xee", setup.path("pic.png")])
        #expect(byName.status == 0, "\(byName)")
        #expect(setup.inbox(Self.xee) == ["pic.png"])
        let refused = try await setup.courier(["open", "-W", "--app", Self.skim, setup.path("notes.txt")])
        #expect(refused.status == 7, "\(refused)")   // NotPermitted: Skim declares no text type
        #expect(refused.error.contains(Self.skim) && refused.error.contains("notes.txt"), "\(refused.error)")
        #expect(setup.inbox(Self.skim).isEmpty)
        let unknown = try await setup.courier(["open", "-a", "Nobody", setup.path("notes.txt")])
        #expect(unknown.status == 3 && unknown.error.contains("'Nobody'"), "\(unknown)")
    }

    @Test func aDryRunShowsTheChoiceAndWritesNothing() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let dry = try await setup.courier(["open", "--dry-run", setup.path("photo.txt"), setup.path("blob.bin")])
        #expect(dry.status == 0, "\(dry)")
        let lines = dry.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(dry.output)")
        #expect(lines.first?.hasPrefix("\(setup.path("photo.txt")): would open in \(Self.xee) (public.png, by its content") == true, "\(dry.output)")
        #expect(lines.last?.contains("would go to the desktop's handler") == true, "\(dry.output)")
        // A file: URL is percent-decoded to its path.
        try Data("a\n".utf8).write(to: setup.files.appendingPathComponent("two words.pdf"))
        let encoded = try await setup.courier(["open", "--dry-run", "file://" + setup.path("two%20words.pdf")])
        #expect(encoded.status == 0 && encoded.output.hasPrefix("\(setup.path("two words.pdf")): would open in "), "\(encoded)")
        let strict = try await setup.courier(["open", "--dry-run", "--no-fallback", setup.path("blob.bin")])
        #expect(strict.status == 3, "\(strict)")
        #expect(setup.inbox(Self.xee).isEmpty && setup.deliveries(Self.xee).isEmpty)
    }

    @Test func aFileNoCourierAppHandlesGoesToTheDesktop() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        // A stand-in for gio on PATH that records its arguments.
        let bin = setup.files.appendingPathComponent("bin", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let record = setup.files.appendingPathComponent("gio-arguments").path
        let gio = bin.appendingPathComponent("gio").path
        try Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record)'\n".utf8).write(to: URL(fileURLWithPath: gio))
        chmod(gio, 0o755)
        setup.environment["PATH"] = bin.path + ":" + (setup.environment["PATH"] ?? "/usr/bin:/bin")
        let opened = try await setup.courier(["open", setup.path("blob.bin")])
        #expect(opened.status == 0, "\(opened)")
        #expect((try? String(contentsOfFile: record, encoding: .utf8)) == "open\n--\nfile://\(setup.path("blob.bin"))\n")
        // A folder is no document: the desktop shows it, as macOS `open DIR` does.
        let folder = try await setup.courier(["open", bin.path])
        #expect(folder.status == 0, "\(folder)")
        #expect((try? String(contentsOfFile: record, encoding: .utf8)) == "open\n--\nfile://\(bin.path)/\n")
        let refused = try await setup.courier(["open", "--no-fallback", setup.path("blob.bin")])
        #expect(refused.status == 3 && refused.error.contains("blob.bin"), "\(refused)")
        let missing = try await setup.courier(["open", setup.path("missing.txt")])
        #expect(missing.status == 66 && missing.error.contains("missing.txt"), "\(missing)")
    }

    @Test func aMixedDropGoesToEachFilesAppAndSaysWhere() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        // The image first: the target is not chosen by the first file.
        let dropped = try await setup.courier(["drop", setup.path("pic.png"), setup.path("notes.txt"), setup.path("paper.pdf")])
        #expect(dropped.status == 0, "\(dropped)")
        let inbox = { (id: String, name: String) in "\(setup.container(id))/Documents/Inbox/\(name)" }
        #expect(dropped.output == """
            \(setup.path("pic.png")) → \(Self.xee): \(inbox(Self.xee, "pic.png"))
            \(setup.path("notes.txt")) → \(Self.wrangler): \(inbox(Self.wrangler, "notes.txt"))
            \(setup.path("paper.pdf")) → \(Self.skim): \(inbox(Self.skim, "paper.pdf"))

            """, "\(dropped)")
        // Handled by each app before the command returned.
        #expect(setup.deliveries(Self.xee) == ["file://" + inbox(Self.xee, "pic.png")])
        #expect(setup.deliveries(Self.wrangler) == ["file://" + inbox(Self.wrangler, "notes.txt")])
        #expect(setup.deliveries(Self.skim) == ["file://" + inbox(Self.skim, "paper.pdf")])
    }

    @Test func filesNobodyAcceptsAreReportedAndNothingIsSent() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let refused = try await setup.courier(["drop", setup.path("notes.txt"), setup.path("blob.bin"), setup.path("pic.png"), "--json"])
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.error.contains("courier drop: \(setup.path("blob.bin")): no app accepts"), "\(refused.error)")
        #expect(!refused.error.contains("\(setup.path("notes.txt")):"), "\(refused.error)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(refused.output.utf8)) as? [String: Any])
        #expect(reply["delivered"] as? Bool == false)
        let files = try #require(reply["files"] as? [[String: Any]])
        #expect(files.map { $0["bundle_id"] as? String } == [Self.wrangler, "", Self.xee])
        #expect(files.allSatisfy { $0["inbox_url"] == nil })
        // Nothing partially delivered: no Inbox got anything, no app was launched.
        #expect(setup.inbox(Self.wrangler).isEmpty && setup.inbox(Self.xee).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: setup.container(Self.xee) + "/launches"))
    }

    /// The same broker method from a client nobody here wrote (python-dbus, descriptors as `h`).
    @Test func openFilesAnswersAPythonClient() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let script = PythonPeers.path("open_files.py")
        let result = try await BackgroundProcess.run("/usr/bin/python3", [script, setup.path("photo.txt"), setup.path("paper.pdf"), setup.path("blob.bin")],
                                                     environment: setup.environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            photo.txt public.png \(Self.xee) True False
            paper.pdf com.adobe.pdf \(Self.skim) True False
            blob.bin dyn.ext.bin - False False

            """, "\(result.output)")
    }

    /// Hostile descriptors: a pipe (whose writer never writes) is routed by its name only — the
    /// broker reads no content from what is not a regular file, so nothing blocks — and refused
    /// as `InvalidFile` when sent for real; names that are not one per file are `InvalidArguments`.
    @Test func aPipeIsRoutedByNameThenRefusedAndTheBrokerKeepsServing() async throws {
        let setup = try await Setup()
        defer { setup.tearDown() }
        let script = PythonPeers.path("open_pipe.py")
        let result = try await BackgroundProcess.run("/usr/bin/python3", [script], environment: setup.environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            public.plain-text \(Self.wrangler)
            org.courier.Error.InvalidFile
            org.courier.Error.InvalidArguments
            3

            """, "\(result.output)")
        #expect(setup.inbox(Self.wrangler).isEmpty)
    }

    /// A caller that does not wait (`wait=false`) holds one of its slots for unanswered drops per
    /// drop until the app answers: drops to an app that never checks in cannot pile up past that
    /// limit (64 per request it may have in flight: here courierd allows one), and the ones beyond
    /// it are refused at once with nothing written.
    @Test func dropsNobodyWaitsForStillCountAgainstTheCallersLimit() async throws {
        let setup = try await Setup(fixtures: [], courierd: ["--max-requests-per-sender", "1"]) { writer in
            // An app that starts and never checks in: every delivery waits for the launch timeout (20 s).
            let sleeper: [String: Any] = [
                "CFBundleIdentifier": "com.acme.sleeper", "CFBundleName": "Sleeper",
                "CFBundleDocumentTypes": [["CFBundleTypeName": "Text", "LSItemContentTypes": ["public.plain-text"]]],
                "CourierLaunchArguments": ["/usr/bin/python3", "-c", "import time; time.sleep(30)", writer.folder.path],
            ]
            try PropertyListSerialization.data(fromPropertyList: sleeper, format: .xml, options: 0)
                .write(to: writer.folder.appendingPathComponent("com.acme.sleeper.plist"))
        }
        defer { setup.tearDown() }
        let script = PythonPeers.path("unawaited_drops.py")
        let result = try await BackgroundProcess.run("/usr/bin/python3", [script, setup.path("notes.txt")], environment: setup.environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "64 6 ['org.courier.Error.LimitsExceeded']\n", "\(result.output)")
        #expect(setup.inbox("com.acme.sleeper").count == 64)
    }
}
