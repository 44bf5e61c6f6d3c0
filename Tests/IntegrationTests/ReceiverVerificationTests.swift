import BusTestSupport
import Courier
import CourierTools
import CourierBroker
import CourierNames
import DBus
import Foundation
import Testing

/// The issue "Trust", identity of receivers, played as an attacker on a real bus: processes of the
/// same user that take an app's bus name get no URL and no file, cannot check in, make opens and
/// drops fail with `NameSquatted` naming their pid, and the broker keeps serving.
@Suite("Receiver verification on a private bus", .serialized)
struct ReceiverVerificationTests {
    static let secret = "todolist://www.acme.com?Secret%20task"

    /// The todolist app, and an echo app that answers with the source application it was told.
    static func fixture() async throws -> BrokerFixture {
        try await BrokerFixture { writer in
            try writer.todolist()
            let script = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, script, "echo"])
        }
    }

    /// Starts the impostor script with `interpreter` (python3, or a renamed copy of it) and waits
    /// until it owns `bundleID` and has tried everything (its owned.txt).
    static func impostor(_ fixture: BrokerFixture, interpreter: String = systemPython, bundleID: String = "com.acme.todolist",
                         waitForName: Bool = false, forkAndExit: Bool = false, untilReady: Bool = true) throws -> (process: BackgroundProcess, out: URL) {
        let out = fixture.root.appendingPathComponent("impostor-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let script = PythonPeers.path("impostor.py")
        let process = try BackgroundProcess(interpreter, [script, bundleID, out.path] + (waitForName ? ["wait"] : forkAndExit ? ["fork"] : []),
                                            environment: fixture.environment, outputIn: out, name: "impostor")
        return (process, out)
    }

    /// Waits (up to 20 s, polling) until `file` exists; its contents.
    static func waitForFile(_ file: URL) async throws -> String {
        for _ in 0..<400 {
            if let text = try? String(contentsOf: file, encoding: .utf8), !text.isEmpty { return text }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(file.path) never appeared")
        return ""
    }

    static func read(_ folder: URL, _ name: String) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func anImpostorHoldingTheNameBeforeLaunchIsRefusedAndOpensAndDropsNameItsPid() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (impostor, out) = try Self.impostor(fixture)
        defer { impostor.kill() }
        _ = try await Self.waitForFile(out.appendingPathComponent("owned.txt"))
        #expect(Self.read(out, "checkin.txt")?.hasPrefix("org.courier.Error.NotPermitted") == true, "\(Self.read(out, "checkin.txt") ?? "")")
        // Its open, as the app it pretends to be, reached the echo app as from nobody.
        #expect(Self.read(out, "forged.txt") == "-\n")

        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(Self.secret) }
        #expect(error?.dbusName == "org.courier.Error.NameSquatted", "\(String(describing: error))")
        #expect(error?.message.contains("pid \(impostor.pid)") == true, "\(error?.message ?? "")")
        // The static front says the same, and exits 7 (not permitted).
        let front = try await fixture.run(Products.path("courier"), ["open", Self.secret])
        #expect(front.status == 7, "\(front.output) \(front.error)")
        #expect(front.error.contains("pid \(impostor.pid)"), "\(front.error)")
        // A drop on the app fails the same way, and writes nothing into its Inbox.
        let note = fixture.root.appendingPathComponent("note.txt")
        try Data("secret line\n".utf8).write(to: note)
        let drop = try await fixture.run(Products.path("courier-tool"), ["drop", note.path, "--to", "com.acme.todolist"])
        #expect(drop.status == 7, "\(drop.output) \(drop.error)")
        #expect(drop.error.contains("pid \(impostor.pid)"), "\(drop.error)")
        let inbox = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.todolist/Documents/Inbox")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).isEmpty)
        // The real app was never started (its name is taken), and nothing was stolen.
        #expect(fixture.launcher.count == 1)   // the echo app, for the impostor's own open
        #expect(Self.read(out, "stolen.txt") == nil)
        // The squat is visible to the user.
        let row = try await fixture.client.listApplications().first { $0["bundle-id"]?.stringValue == "com.acme.todolist" }
        #expect(row?["squatted"]?.boolValue == true)
        #expect(row?["squatter-pid"]?.uint32Value == UInt32(impostor.pid))
        let status = try await fixture.run(Products.path("courier-tool"), ["status"])
        #expect(status.output.contains("squatted by pid \(impostor.pid)"), "\(status.output)")

        // The broker still serves; once the impostor is gone, the real app gets the next URL.
        #expect(try await fixture.client.open("echo://still-serving").handled)
        impostor.kill()
        _ = await impostor.wait()
        var released = false
        for _ in 0..<200 where !released {
            let row = try await fixture.client.listApplications().first { $0["bundle-id"]?.stringValue == "com.acme.todolist" }
            released = row?["squatted"] == nil
            if !released { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(released)
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20the%20impostor").handled)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["After the impostor"])
    }

    @Test func anImpostorTakingTheNameAfterTheAppExitsGetsNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?First").handled)
        let (impostor, out) = try Self.impostor(fixture, waitForName: true)
        defer { impostor.kill() }
        for pid in fixture.launcher.pids { kill(pid, SIGTERM) }
        _ = try await Self.waitForFile(out.appendingPathComponent("owned.txt"))
        #expect(Self.read(out, "checkin.txt")?.hasPrefix("org.courier.Error.NotPermitted") == true, "\(Self.read(out, "checkin.txt") ?? "")")

        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(Self.secret) }
        #expect(error?.dbusName == "org.courier.Error.NameSquatted", "\(String(describing: error))")
        #expect(error?.message.contains("pid \(impostor.pid)") == true, "\(error?.message ?? "")")
        #expect(Self.read(out, "stolen.txt") == nil)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["First"])
        #expect(try await fixture.client.open("echo://still-serving").handled)
    }

    /// A squatter whose process exited no longer stops a launch (the bus is about to drop its
    /// name: see `ReceiverGuard.squatter(of:beforeLaunch:)`). Here the exit is a trick: a child
    /// inherited the connection and keeps the name. The real app is started, cannot own its name,
    /// and the open still fails with `NameSquatted`; nothing reaches the child.
    @Test func anImpostorWhoseChildKeepsTheNameAfterItExitsStillGetsNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let (impostor, out) = try Self.impostor(fixture, forkAndExit: true)
        let child = Int32(try await Self.waitForFile(out.appendingPathComponent("child.txt")).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        defer { if child > 0 { kill(child, SIGKILL) } }
        #expect(child > 0)
        _ = await impostor.wait()
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(Self.secret) }
        #expect(error?.dbusName == "org.courier.Error.NameSquatted", "\(String(describing: error))")
        #expect(Self.read(out, "stolen.txt") == nil)
        #expect(fixture.todoItems().isEmpty)
        #expect(try await fixture.client.open("echo://still-serving").handled)
    }

    @Test func aProgramNamedLikeTheAppOrACopyOfItsBinaryIsNotTheApp() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        // The right executable name, another binary: python3 copied as …/bin/todolist.
        let bin = fixture.root.appendingPathComponent("bin", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let renamed = bin.appendingPathComponent("todolist").path
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: systemPython).resolvingSymlinksInPath().path, toPath: renamed)
        let (impostor, out) = try Self.impostor(fixture, interpreter: renamed)
        _ = try await Self.waitForFile(out.appendingPathComponent("owned.txt"))
        #expect(Self.read(out, "checkin.txt")?.hasPrefix("org.courier.Error.NotPermitted") == true, "\(Self.read(out, "checkin.txt") ?? "")")
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(Self.secret) }
        #expect(error?.dbusName == "org.courier.Error.NameSquatted", "\(String(describing: error))")
        #expect(error?.message.contains(renamed) == true, "\(error?.message ?? "")")
        #expect(Self.read(out, "stolen.txt") == nil)
        impostor.kill()
        _ = await impostor.wait()

        // A byte-for-byte copy of the real todolist in another folder: refused at CheckIn, so it
        // ends with a one-line error and a non-zero status, and stores nothing.
        let copy = fixture.root.appendingPathComponent("copy", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Products.path("todolist"), toPath: copy.appendingPathComponent("todolist").path)
        var environment = fixture.environment
        environment["COURIER_BUNDLE_ID"] = "com.acme.todolist"
        let copied = try BackgroundProcess(copy.appendingPathComponent("todolist").path, ["run"], environment: environment, outputIn: copy, name: "copy")
        defer { copied.kill() }
        let status = await copied.wait(timeout: .seconds(20))   // an admitted copy would serve forever
        #expect(status != nil && status != 0, "\(String(describing: status))")
        let errors = (try? String(contentsOfFile: copied.stderrPath, encoding: .utf8)) ?? ""
        #expect(errors.contains("refused"), "\(errors)")
        #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        #expect(fixture.todoItems().isEmpty)
        // The real app, launched by the broker, is admitted.
        #expect(try await fixture.client.open("todolist://www.acme.com?Real").handled)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["Real"])
    }

    @Test func theRealBinaryStartedByHandIsTheApp() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        var environment = fixture.environment
        environment["COURIER_BUNDLE_ID"] = "com.acme.todolist"
        let app = try BackgroundProcess(Products.path("todolist"), ["run"], environment: environment, outputIn: fixture.root, name: "by-hand")
        defer { app.kill() }
        var running = false
        var state = ""
        for _ in 0..<200 where !running {
            let row = try await fixture.client.listApplications().first { $0["bundle-id"]?.stringValue == "com.acme.todolist" }
            state = row?["state"]?.stringValue ?? ""
            running = state.hasPrefix("active") || state.hasPrefix("idle")
            if !running { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(running, "state \(state); the app said: \(app.errors)")
        #expect(try await fixture.client.open("todolist://www.acme.com?By%20hand").handled)
        #expect(fixture.launcher.count == 0)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["By hand"])
    }

    @Test func gdbusCannotCheckInForAnAppWhoseNameItDoesNotOwn() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let result = try await fixture.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
            "--method", "org.courier.Broker1.CheckIn", "com.acme.todolist",
        ])
        #expect(result.status != 0)
        #expect(result.error.contains("org.courier.Error.NotPermitted"), "\(result.error)")
        #expect(try await fixture.client.open("todolist://www.acme.com?Still%20mine").handled)
    }
}
