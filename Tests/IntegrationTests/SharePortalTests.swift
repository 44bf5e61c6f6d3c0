import BusTestSupport
@testable import Courier
import DBus
import Foundation
import Testing

/// "Save to…" through the desktop portal (docs/share.md): `courier share` against a real `courierd`
/// (the apps of `ShareCommandTests`), with Debian's `xdg-desktop-portal` on the same private bus
/// and a file-chooser backend of the test's own (`TestDesktopPortal`), which answers the folder
/// dialog with a folder, a cancel, or something else.
@Suite("Sharing: Save to… asks the desktop portal for the folder", .serialized,
       .enabled(if: TestDesktopPortal.isInstalled, "needs xdg-desktop-portal and python3-dbus (scripts/bootstrap installs both)"))
struct SharePortalTests {
    /// Random bytes, so "byte-exact" means something.
    static let payload = (0..<70_000).map { _ in UInt8.random(in: 0...255) }

    static func destination(_ setup: OpenDocumentsTests.Setup) throws -> String {
        let folder = setup.files.appendingPathComponent("chosen folder", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func errorName(_ output: String) throws -> String? {
        (try ShareCommandTests.json(output)["error"] as? [String: Any])?["name"] as? String
    }

    /// `--activity save-to` without `--folder`: the portal's folder dialog is asked (OpenFile with
    /// `directory`, through the portal's request), and the items land byte-exact in the folder it
    /// answers.
    @Test func saveToWithoutAFolderAsksThePortalAndTheFilesLandByteExact() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let folder = try Self.destination(setup)
        let portal = try await TestDesktopPortal.start(on: setup, answer: folder)
        defer { portal.stop() }
        try Data(Self.payload).write(to: setup.files.appendingPathComponent("random.bin"))

        let shared = try await setup.courier(["share", setup.path("random.bin"), "--text", "Buy milk", "--activity", "save-to", "--json"])
        #expect(shared.status == 0, "\(shared)\n\(portal.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Text.txt", "random.bin"])
        #expect(FileManager.default.contents(atPath: folder + "/random.bin") == Data(Self.payload))
        #expect(FileManager.default.contents(atPath: folder + "/Text.txt") == Data("Buy milk".utf8))
        #expect(try ShareCommandTests.json(shared.output)["delivered"] as? [String] == [folder + "/random.bin", folder + "/Text.txt"], "\(shared)")

        // What the backend was asked, through the frontend: a folder, with our request's token.
        let call = try #require(portal.calls.first { $0["call"] as? String == "OpenFile" }, "\(portal.calls)\n\(portal.log)")
        let options = try #require(call["options"] as? [String: Any])
        #expect(options["directory"] as? Bool == true, "\(call)")
        #expect(options["accept_label"] as? String == "Save", "\(call)")
        #expect(call["title"] as? String == "Save 2 items to…", "\(call)")
        #expect((call["handle"] as? String)?.hasPrefix("/org/freedesktop/portal/desktop/request/") == true, "\(call)")
        #expect((call["handle"] as? String)?.split(separator: "/").last?.hasPrefix("courier") == true, "\(call)")
        #expect(portal.calls.filter { $0["call"] as? String == "OpenFile" }.count == 1, "\(portal.calls)")
    }

    /// The person cancels the folder dialog (response 1): nothing is saved, and the refusal is
    /// `Dismissed`, saying so.
    @Test func aCancelledFolderDialogSavesNothingAndSaysDismissed() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let portal = try await TestDesktopPortal.start(on: setup, answer: "cancel")
        defer { portal.stop() }
        let before = try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted()
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--activity", "save-to", "--json"])
        #expect(shared.status == 1, "\(shared)\n\(portal.log)")
        #expect(try Self.errorName(shared.output) == "org.courier.Error.Dismissed", "\(shared)")
        #expect(shared.error.contains("dismissed") && shared.error.contains("nothing was saved"), "\(shared)")
        #expect(portal.calls.contains { $0["call"] as? String == "OpenFile" }, "the portal was not asked: \(portal.calls)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted() == before)
    }

    /// A dialog that ends some other way (response 2), or an answer that is not a local folder:
    /// `Failed`, named, and nothing saved anywhere.
    @Test(arguments: ["other", "uri:https://example.org/folder", "uri:file://elsewhere.example/tmp"])
    func aDialogEndingOtherwiseOrAnAnswerThatIsNoLocalFolderSavesNothing(answer: String) async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let portal = try await TestDesktopPortal.start(on: setup, answer: answer)
        defer { portal.stop() }
        let before = try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted()
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--activity", "save-to", "--json"])
        #expect(shared.status != 0, "\(shared)\n\(portal.log)")
        #expect(try Self.errorName(shared.output) == "org.courier.Error.Failed", "\(shared)\n\(portal.log)")
        #expect(shared.error.contains("nothing was saved"), "\(shared)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted() == before)
    }

    /// Another process of the user watches the bus, sees the request (its token too) and answers
    /// it first with a folder of its own, from its own connection, at the request's path, while
    /// the real portal answers 3 s later: only the portal's answer counts, so the file lands in
    /// the folder the person chose and nothing in the forger's.
    @Test func aResponseForgedByAnotherProcessOnTheBusChoosesNoFolder() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let folder = try Self.destination(setup)
        let trap = setup.files.appendingPathComponent("forger's folder", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: trap, withIntermediateDirectories: true)
        let portal = try await TestDesktopPortal.start(on: setup, answer: folder, delay: 3)
        defer { portal.stop() }
        let forger = try BackgroundProcess("/usr/bin/python3", [TestDesktopPortal.fixture("portal-response-forger.py"), trap],
                                           environment: setup.environment, outputIn: setup.files, name: "forger")
        defer { forger.signal(SIGTERM) }
        for _ in 0..<1000 where !forger.output.contains("ready") && forger.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(forger.output.contains("ready"), "\(forger.errors)")

        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--activity", "save-to", "--json"])
        #expect(forger.output.contains("forged /org/freedesktop/portal/desktop/request/"), "the forger saw no request: \(forger.output)\(forger.errors)")
        #expect(shared.status == 0, "\(shared)\n\(portal.log)")
        #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == Data("milk\neggs\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: trap).isEmpty, "the forged answer was believed")
    }

    /// The app cancels its share while the folder dialog is up: the request is closed (the
    /// portal passes `Close` on to its backend: the dialog goes away), the app sees `Dismissed`,
    /// and nothing is saved.
    @Test func aShareCancelledWhileTheDialogIsUpClosesIt() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let app = try Application(bundleID: "com.example.sharer", delegate: ShareLibraryTests.Sharer(), connection: try setup.daemon.bus.connect())
        defer { app.stop() }
        let portal = try await TestDesktopPortal.start(on: setup, answer: "hang")
        defer { portal.stop() }
        let before = try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted()
        let share = Task { try await app.share([.text("x")], chooser: NamedShareChooser(id: "save-to")) }
        for _ in 0..<1000 where !portal.calls.contains(where: { $0["call"] as? String == "OpenFile" }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        share.cancel()
        let result = await share.result
        guard case .failure(let error as CourierError) = result else {
            Issue.record("the share ended with \(result)")
            return
        }
        #expect(error.code == .dismissed && error.message.contains("cancelled"), "\(error)")
        var closed = false
        for _ in 0..<1000 where !closed {
            closed = portal.calls.contains { $0["call"] as? String == "Close" }
            if !closed { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(closed, "the dialog stayed up: \(portal.calls)\n\(portal.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.files.path).sorted() == before)
    }

    /// A session whose portal has not been started yet: the bus starts it (D-Bus activation of
    /// `org.freedesktop.portal.Desktop`, as Debian's service file does), and its dialog answers.
    @Test(.enabled(if: PrivateBus.supportsActivation, "bus activation needs dbus-daemon (COURIER_TEST_BUS=dbus-broker has none without systemd)"))
    func aPortalNotYetRunningIsStartedByTheBusAndAsked() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("courier-portal-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let root = work.appendingPathComponent("portal", isDirectory: true)
        try TestDesktopPortal.activationService(in: work.appendingPathComponent("services"), root: root)
        let bus = try PrivateBus(servicesDirectory: work.appendingPathComponent("services"))
        defer { bus.stop() }
        let connection = try bus.connect()
        defer { connection.close() }
        let folder = work.appendingPathComponent("chosen", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portal = try await TestDesktopPortal(environment: bus.environment, folder: work, connection: connection, answer: folder.path,
                                                 startFrontend: false, root: root)
        defer { portal.stop() }
        #expect(try await connection.nameOwner(of: "org.freedesktop.portal.Desktop") == nil)

        let folders = try #require(await PortalFolderChooser.onDesktop(connection), "the bus did not start the portal")
        let owner = try #require(try await connection.nameOwner(of: "org.freedesktop.portal.Desktop"))
        let started = try await connection.credentials(of: owner).processID
        defer { if let started { kill(pid_t(started), SIGTERM) } }
        #expect(try await folders.chooseFolder(for: ["notes.txt"]) == folder.path)
        #expect(portal.calls.first?["title"] as? String == "Save notes.txt to…", "\(portal.calls)")
    }

    /// The desktop sheet with a portal running: the notification offers "Save to…" too, and the
    /// click on it opens the portal's folder dialog; the file lands in the folder chosen there.
    @Test func theNotificationOffersSaveToWhenAPortalRunsAndThePortalAsksWhere() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let folder = try Self.destination(setup)
        let portal = try await TestDesktopPortal.start(on: setup, answer: folder)
        defer { portal.stop() }
        let server = try await TestNotificationServer(environment: setup.environment, folder: setup.files, answer: "save-to")
        defer { server.stop() }
        let shared = try await setup.courier(["share", setup.path("notes.txt"), "--json"])
        #expect(shared.status == 0, "\(shared)\n\(portal.log)")
        let shown = try #require(server.notifications.first, "\(server.calls)")
        let keys = (shown["actions"] as? [String] ?? []).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(keys.contains("save-to"), "\(shown)")
        #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == Data("milk\neggs\n".utf8))
        #expect(portal.calls.first { $0["call"] as? String == "OpenFile" }?["title"] as? String == "Save \(setup.path("notes.txt")) to…", "\(portal.calls)")
    }

    /// From an app: `Application.share` choosing "Save to…" without a folder (as
    /// `todolist share --activity save-to` does) saves through the portal the same way, and a
    /// cancel in the dialog is the `Dismissed` the app sees.
    @Test func anAppsShareSavesThroughThePortalAndSeesTheDismissal() async throws {
        let setup = try await ShareCommandTests.setup()
        defer { setup.tearDown() }
        let folder = try Self.destination(setup)
        let connection = try setup.daemon.bus.connect()
        let app = try Application(bundleID: "com.example.sharer", delegate: ShareLibraryTests.Sharer(), connection: connection)
        defer { app.stop() }
        let first = try await TestDesktopPortal.start(on: setup, answer: folder)
        #expect(await PortalFolderChooser.onDesktop(connection) != nil, "no portal found: \(first.log)")
        let outcome = try await app.share([.data(Data(Self.payload), type: "public.data", name: "export.bin")], chooser: NamedShareChooser(id: "save-to"))
        #expect(outcome.delivered == [folder + "/export.bin"])
        #expect(FileManager.default.contents(atPath: folder + "/export.bin") == Data(Self.payload))
        await first.stopped()

        let portal = try await TestDesktopPortal.start(on: setup, answer: "cancel")
        defer { portal.stop() }
        do {
            _ = try await app.share([.text("x")], chooser: NamedShareChooser(id: "save-to"))
            Issue.record("the share went through")
        } catch {
            #expect(error.code == .dismissed, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["export.bin"])
    }
}
