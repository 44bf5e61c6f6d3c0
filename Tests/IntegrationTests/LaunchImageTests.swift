import BusTestSupport
import CourierBroker
import CourierManifest
import CourierNames
import Foundation
import Testing

/// Launch images (docs/manifest.md, "Launch images") on a private bus with a real notification
/// server, the test's own peer (`TestNotificationServer`, python-dbus): the broker launches the
/// real todolist for a URL through a shell that waits at a gate file the test creates, so "slow"
/// is whatever the test decides, never a guess about the machine's speed.
@Suite("Launch images: shown while a launch for a URL is slow, withdrawn when it ends", .serialized)
struct LaunchImageTests {
    static let url = "todolist://www.acme.com?Launch%20Image"

    /// `sh -c` waiting for the file `gate`, then running `then` (`exec todolist`, or a failure).
    static func gated(_ gate: URL, then command: String) -> [String] {
        ["/bin/sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.02; done; \(command)", gate.path, Products.path("todolist")]
    }

    /// A fixture whose todolist starts through `gated`, with `Default-todolist.png` beside its
    /// manifest, and a notification server on its bus.
    static func start(then command: String = "exec \"$1\"", delay: Duration = LaunchImageSettings.defaultDelay, image: [UInt8] = SampleContent.png) async throws -> (BrokerFixture, TestNotificationServer, URL) {
        let gate = FileManager.default.temporaryDirectory.appendingPathComponent("courier-launch-gate-\(UUID().uuidString)")
        let fixture = try await BrokerFixture(launchImageDelay: delay) { writer in
            try writer.todolist(arguments: gated(gate, then: command))
            try Data(image).write(to: writer.folder.appendingPathComponent("Default-todolist.png"))
        }
        let server = try await TestNotificationServer(environment: fixture.environment, folder: fixture.root)
        return (fixture, server, gate)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func aSlowLaunchShowsTheSchemesImageUntilTheAppChecksIn() async throws {
        let (fixture, server, gate) = try await Self.start()
        defer { server.stop(); fixture.tearDown(); try? FileManager.default.removeItem(at: gate) }
        let open = Task { try await fixture.client.open(Self.url) }
        let shown = try #require(await server.first { $0["call"] as? String == "Notify" }, "no launch image was shown: \(server.calls)")
        // The app's name, the image's bytes as the manifest's folder has them, from the broker.
        #expect(shown["summary"] as? String == "To-Do List", "\(shown)")
        let hints = try #require(shown["hints"] as? [String: Any])
        #expect((hints["image-path"] as? String)?.hasPrefix("file://") == true, "\(hints)")
        #expect(shown["image_hex"] as? String == Self.hex(SampleContent.png), "\(shown)")
        #expect(hints["transient"] as? Bool == true, "\(hints)")
        #expect(shown["sender"] as? String == fixture.service.connection.uniqueName?.rawValue, "\(shown)")
        #expect(shown["actions"] as? [String] == [], "\(shown)")
        let id = try #require(shown["id"] as? Int)
        #expect(!server.wasClosed(id), "withdrawn while the app had not checked in")

        try Data().write(to: gate)
        let answer = try await open.value
        #expect(answer.handled)
        let closed = await server.first { $0["call"] as? String == "CloseNotification" && $0["id"] as? Int == id }
        #expect(closed != nil, "the launch image stayed after the app checked in: \(server.calls)")
        #expect(server.notifications.count == 1, "\(server.calls)")
        // A warm open shows nothing.
        _ = try await fixture.client.open("todolist://www.acme.com?Warm")
        #expect(server.notifications.count == 1, "\(server.calls)")
    }

    /// A launch that checks in before the delay (a delay longer than any launch here) shows
    /// nothing, and nothing comes later: the wait ended with the launch.
    @Test func aLaunchThatChecksInBeforeTheDelayShowsNothing() async throws {
        let (fixture, server, gate) = try await Self.start(delay: .seconds(3))
        defer { server.stop(); fixture.tearDown(); try? FileManager.default.removeItem(at: gate) }
        try Data().write(to: gate)
        let answer = try await fixture.client.open(Self.url)
        #expect(answer.handled)
        // Past the delay: a wait that outlived the launch would show the image now (the time
        // passing is what is tested).
        try await Task.sleep(for: .seconds(4))
        #expect(server.notifications.isEmpty, "\(server.calls)")
    }

    @Test func aFailedLaunchWithdrawsTheImage() async throws {
        let (fixture, server, gate) = try await Self.start(then: "exit 3")
        defer { server.stop(); fixture.tearDown(); try? FileManager.default.removeItem(at: gate) }
        let open = Task { try await fixture.client.open(Self.url) }
        let shown = try #require(await server.first { $0["call"] as? String == "Notify" }, "no launch image was shown: \(server.calls)")
        let id = try #require(shown["id"] as? Int)
        try Data().write(to: gate)
        let error = await #expect(throws: CourierError.self) { try await open.value }
        #expect(error?.code == .launchFailed, "\(String(describing: error))")
        let closed = await server.first { $0["call"] as? String == "CloseNotification" && $0["id"] as? Int == id }
        #expect(closed != nil, "the launch image stayed after the launch failed: \(server.calls)")
    }

    /// The image is no longer what was checked when the manifest was loaded when the launch comes:
    /// a hostile process of the user swapped it for a FIFO (read again without waiting on it), or
    /// it is gone, grown past the limit, or no longer a PNG. Nothing is shown and the launch goes on.
    @Test(arguments: ["a FIFO", "missing", "huge", "not a PNG"])
    func anImageSwappedMissingHugeOrNotAPNGAtLaunchIsNotShownAndTheLaunchGoesOn(problem: String) async throws {
        let (fixture, server, gate) = try await Self.start()
        defer { server.stop(); fixture.tearDown(); try? FileManager.default.removeItem(at: gate) }
        let image = fixture.manifests.appendingPathComponent("Default-todolist.png")
        try FileManager.default.removeItem(at: image)
        switch problem {
        case "a FIFO": #expect(mkfifo(image.path, 0o600) == 0)
        case "huge": try Data(SampleContent.png + [UInt8](repeating: 0, count: LaunchImages.maximumFileSize)).write(to: image)
        case "not a PNG": try Data("GIF89a, not a PNG\n".utf8).write(to: image)
        default: break
        }
        let open = Task { try await fixture.client.open(Self.url) }
        // Well past the delay, then the app may start (the time passing is what is tested: the
        // image is due while the launch still waits).
        try await Task.sleep(for: .seconds(1))
        try Data().write(to: gate)
        let answer = try await open.value
        #expect(answer.handled)
        #expect(server.notifications.isEmpty, "\(server.calls)")
    }

    // MARK: - Debian's dunst

    static let hasDunst = VirtualDisplay.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/dunst")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/dunstctl")

    /// `dunstctl count displayed` on the fixture's bus once `until` holds for it, polled for up to
    /// 20 s (nil: dunst does not answer).
    static func displayed(_ environment: [String: String], until: (Int?) -> Bool) async throws -> Int? {
        var count: Int?
        for _ in 0..<1000 {
            let run = try await BackgroundProcess.run("/usr/bin/dunstctl", ["count", "displayed"], environment: environment)
            count = run.status == 0 ? Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
            if until(count) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return count
    }

    /// The desktop's own notification daemon, Debian's `dunst`, on an Xvfb display and the
    /// fixture's bus: it shows the launch image while the app is held at its gate, and no longer
    /// once the app has checked in.
    @Test(.enabled(if: hasDunst, "needs Xvfb and dunst (scripts/bootstrap installs xvfb and dunst)"))
    func dunstShowsTheLaunchImageUntilTheAppChecksIn() async throws {
        let gate = FileManager.default.temporaryDirectory.appendingPathComponent("courier-launch-gate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: gate) }
        // A launch timeout longer than the waits below: the notification's own expiry (the launch
        // timeout) cannot be what removes it.
        let fixture = try await BrokerFixture(launchTimeout: .seconds(60)) { writer in
            try writer.todolist(arguments: Self.gated(gate, then: "exec \"$1\""))
            try Data(SampleContent.png).write(to: writer.folder.appendingPathComponent("Default-todolist.png"))
        }
        defer { fixture.tearDown() }
        let x = try await VirtualDisplay(folder: fixture.root, environment: fixture.environment)
        defer { x.stop() }
        var environment = fixture.environment
        environment["DISPLAY"] = x.display
        let config = fixture.root.appendingPathComponent("dunstrc")
        try Data("[global]\n    show_age_threshold = -1\n".utf8).write(to: config)
        let dunst = try BackgroundProcess("/usr/bin/dunst", ["-config", config.path], environment: environment, outputIn: fixture.root, name: "dunst")
        defer { dunst.signal(SIGTERM) }
        let started = try await Self.displayed(environment) { $0 != nil || dunst.exitStatus != nil }
        try #require(started == 0, "dunst did not start: \(dunst.errors)")

        let open = Task { try await fixture.client.open(Self.url) }
        let shown = try await Self.displayed(environment) { ($0 ?? 0) > 0 }
        #expect(shown == 1, "dunst shows no launch image: \(dunst.errors)")
        try Data().write(to: gate)
        #expect(try await open.value.handled)
        let left = try await Self.displayed(environment) { $0 == 0 }
        #expect(left == 0, "the launch image stayed on dunst after the app checked in")
    }
}
