import BusTestSupport
import Courier
import Foundation
import Testing

/// A process in a Flatpak sandbox is its sandbox's app and no other, and may not change the
/// registry. The sandbox is built as Flatpak builds one, with bubblewrap: a new root (tmpfs) with
/// /usr and /etc bound read-only and a `.flatpak-info` bound read-only at its top, the same pid
/// namespace (so the bus reports the real pid), and the bus's folder bound in. The broker reads the
/// file from outside, through `/proc/PID/root`. Snap and systemd units need snapd or systemd as
/// PID 1: SandboxIdentityTests checks their rules on recorded `/proc/PID/cgroup` contents.
@Suite("Sandboxes on a private bus", .serialized)
struct SandboxBusTests {
    static let bwrap = "/usr/bin/bwrap"

    /// The claimant app (`/usr/bin/python3 claimant.py`, the very script the sandboxes run) and an
    /// app installed as a Flatpak (`flatpak run com.acme.flat`).
    static func fixture() async throws -> BrokerFixture {
        try await BrokerFixture { writer in
            let script = try PythonPeers.copy("claimant.py", to: writer.folder.deletingLastPathComponent())
            try writer.write("com.acme.claimant", schemes: ["claimant"], arguments: [systemPython, script])
            try writer.write("com.acme.flat", schemes: ["flat"], arguments: ["/usr/bin/flatpak", "run", "--branch=stable", "com.acme.flat"])
        }
    }

    /// bwrap's arguments for a Flatpak-like sandbox whose `.flatpak-info` names `application`.
    static func sandbox(_ fixture: BrokerFixture, application: String) throws -> [String] {
        let info = fixture.root.appendingPathComponent("flatpak-info-\(application)")
        try Data("[Application]\nname=\(application)\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=1\n".utf8).write(to: info)
        let shared = fixture.bus.directory.path
        var arguments = ["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        for link in ["bin", "lib", "lib64", "sbin"] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/" + link) { arguments += ["--symlink", target, "/" + link] }
        }
        return arguments + ["--proc", "/proc", "--dev", "/dev", "--ro-bind", info.path, "/.flatpak-info", "--bind", shared, shared, "--", systemPython]
    }

    @Test func bubblewrapIsInstalled() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.bwrap), "install bubblewrap (scripts/bootstrap)")
    }

    @Test func aProcessInAFlatpakSandboxIsItsSandboxsAppAndNoOther() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        // Outside any sandbox, the interpreter running the manifest's own script is the app.
        let outside = try await InterpreterIdentityTests.claim(fixture, ["claim", "com.acme.claimant"])
        #expect(InterpreterIdentityTests.read(outside, "checkin.txt") == "OK\n", "\(InterpreterIdentityTests.read(outside, "checkin.txt"))")

        // The same interpreter and script in the sandbox of another app: not com.acme.claimant.
        let other = try await InterpreterIdentityTests.claim(fixture, ["claim", "com.acme.claimant"], executable: Self.bwrap,
                                                               prefix: try Self.sandbox(fixture, application: "org.other.App"))
        let refused = InterpreterIdentityTests.read(other, "checkin.txt")
        #expect(refused.hasPrefix("org.courier.Error.NotPermitted") && refused.contains("Flatpak sandbox of org.other.App"), "\(refused)")

        // In the sandbox of com.acme.flat, whose manifest runs that Flatpak: it is com.acme.flat.
        let flat = try await InterpreterIdentityTests.claim(fixture, ["claim", "com.acme.flat"], executable: Self.bwrap,
                                                              prefix: try Self.sandbox(fixture, application: "com.acme.flat"))
        #expect(InterpreterIdentityTests.read(flat, "checkin.txt") == "OK\n", "\(InterpreterIdentityTests.read(flat, "checkin.txt"))")
    }

    @Test func aSandboxedProcessMayNotChangeTheRegistry() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.tearDown() }
        let elsewhere = fixture.root.appendingPathComponent("escape", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: elsewhere).write("com.acme.escape", schemes: ["escape"], arguments: ["/bin/sh", "/tmp/anything"])
        let manifest = elsewhere.appendingPathComponent("com.acme.escape.plist").path
        let out = try await InterpreterIdentityTests.claim(fixture, ["register", "com.acme.flat", manifest], executable: Self.bwrap,
                                                             prefix: try Self.sandbox(fixture, application: "com.acme.flat"))
        for answer in ["register.txt", "unregister.txt"] {
            let text = InterpreterIdentityTests.read(out, answer)
            #expect(text.hasPrefix("org.courier.Error.NotPermitted") && text.contains("Flatpak sandbox of com.acme.flat"), "\(answer): \(text)")
        }
        let listed = try await fixture.client.listApplications().compactMap { $0["bundle-id"]?.stringValue }
        #expect(listed.contains("com.acme.flat") && !listed.contains("com.acme.escape"), "\(listed)")
        // The same calls from outside the sandbox are served.
        let host = try await InterpreterIdentityTests.claim(fixture, ["register", "com.acme.escape", manifest])
        #expect(InterpreterIdentityTests.read(host, "register.txt") == "OK\n" && InterpreterIdentityTests.read(host, "unregister.txt") == "OK\n",
                "\(InterpreterIdentityTests.read(host, "register.txt")) \(InterpreterIdentityTests.read(host, "unregister.txt"))")
    }
}
