import CourierBroker
import CourierProcess
import Foundation
import Testing

/// The receiver check on real processes that Courier did not launch: an interpreter alone is not
/// an app, the script it runs must be the manifest's too.
@Suite("ReceiverVerifier")
struct ReceiverVerifierTests {
    static let loop = "import time\nwhile True:\n    time.sleep(1)\n"

    func verifier(_ bundleID: String, _ arguments: [String]) -> ReceiverVerifier {
        let app = AppDescriptor(bundleID: bundleID, launchArguments: arguments, launchTimeout: .seconds(10))
        return ReceiverVerifier(launcher: ProcessLauncher(), resolver: TableResolver(apps: ["x": app]))
    }

    func write(_ directory: TemporaryDirectory, _ name: String, _ text: String, executable: Bool = false) -> String {
        let path = directory.url.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: executable ? 0o755 : 0o644])
        return path
    }

    @Test func anInterpreterRunningAnotherScriptIsNotTheApp() async throws {
        let directory = TemporaryDirectory()
        let app = write(directory, "app.py", Self.loop), other = write(directory, "other.py", Self.loop)
        let verifier = verifier("org.example.scripted", ["/usr/bin/python3", app])
        let real = try Spawner.start(path: "/usr/bin/python3", arguments: ["/usr/bin/python3", app])
        defer { _ = real.stop(grace: .zero) }
        let impostor = try Spawner.start(path: "/usr/bin/python3", arguments: ["/usr/bin/python3", "-u", other])
        defer { _ = impostor.stop(grace: .zero) }

        // Each process is read once it has exec'd its interpreter.
        #expect(await eventually { verifier.verdict(bundleID: "org.example.scripted", pid: real.pid).isApp })
        #expect(await eventually { verifier.verdict(bundleID: "org.example.scripted", pid: impostor.pid).description.contains("other.py") })
        let admitted = verifier.verdict(bundleID: "org.example.scripted", pid: real.pid)
        guard case .sameExecutable(let process) = admitted else {
            Issue.record("the app's own process was refused: \(admitted)")
            return
        }
        #expect(process.script?.path == app)
        #expect(verifier.stillHolds(admitted, bundleID: "org.example.scripted"))
        let refused = verifier.verdict(bundleID: "org.example.scripted", pid: impostor.pid)
        #expect(!refused.isApp)
        #expect(refused.description.contains("other.py") && refused.description.contains("an interpreter alone is not an app"), "\(refused)")
    }

    @Test func aShebangScriptIsItsInterpreterRunningThatScript() async throws {
        let directory = TemporaryDirectory()
        let body = "#!/bin/sh\nwhile :; do sleep 1; done\n"
        let app = write(directory, "app", body, executable: true), other = write(directory, "other", body, executable: true)
        let verifier = verifier("org.example.shebang", [app])
        let real = try Spawner.start(path: app, arguments: [app])
        defer { _ = real.stop(grace: .zero) }
        let impostor = try Spawner.start(path: other, arguments: [other])
        defer { _ = impostor.stop(grace: .zero) }
        // A process whose /proc/PID/exe is /bin/sh is the app when its script is the manifest's.
        #expect(await eventually { verifier.verdict(bundleID: "org.example.shebang", pid: real.pid).isApp })
        #expect(await eventually { verifier.verdict(bundleID: "org.example.shebang", pid: impostor.pid).description.contains("other") })
        let refused = verifier.verdict(bundleID: "org.example.shebang", pid: impostor.pid)
        #expect(!refused.isApp && refused.description.contains("other"), "\(refused)")
    }

    @Test func anInterpreterWithInlineCodeCanOnlyBeTheProcessCourierLaunched() async throws {
        let verifier = verifier("org.example.inline", ["/usr/bin/python3", "-c", "import time; time.sleep(60)"])
        let process = try Spawner.start(path: "/usr/bin/python3", arguments: ["/usr/bin/python3", "-c", "import time; time.sleep(60)"])
        defer { _ = process.stop(grace: .zero) }
        #expect(await eventually { ProcessIdentity.of(pid: process.pid).executable == FileIdentity(path: "/usr/bin/python3") })
        let verdict = verifier.verdict(bundleID: "org.example.inline", pid: process.pid)
        #expect(!verdict.isApp && verdict.description.contains("no script file"), "\(verdict)")
    }
}
