import BusTestSupport
import Foundation
import Testing

/// A launched app's output in the systemd journal. These machines do not run systemd as PID 1, so
/// the test runs the real `systemd-journald` in a mount namespace of its own (a tmpfs over `/run`
/// and `/var/log/journal`, so nothing reaches the machine's journal), starts `courierd` inside it,
/// and reads the app's lines back with `journalctl -t BUNDLE_ID` and `courier log` there. The bus
/// and the home stay in `/tmp`, which both sides see.
@Suite(.serialized, .enabled(if: InstallScriptTests.built, "courier and courierd are not built beside the tests"))
struct JournalLogTests {
    static let journald = ["/lib/systemd/systemd-journald", "/usr/lib/systemd/systemd-journald"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    let base = DesktopBrokerTests()

    /// Runs `arguments` inside the namespace of `holder` (a process in it).
    func inside(_ holder: Int32, _ arguments: [String], _ environment: [String: String]) async throws -> BackgroundProcess.Completed {
        try await BackgroundProcess.run("/usr/bin/nsenter", ["--mount=/proc/\(holder)/ns/mnt", "--"] + arguments, environment: environment)
    }

    /// Polls `check` (bounded) until it holds.
    func eventually(_ seconds: Double = 20, _ check: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await check() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func aLaunchedAppsOutputGoesToTheJournalAndCourierLogReadsItThere() async throws {
        guard let journald = Self.journald else {
            Issue.record("systemd-journald is not installed: scripts/bootstrap installs it (Debian package systemd)")
            return
        }
        let setup = try base.start()
        // The app prints on both outputs before it checks in.
        let manifest = setup.home.directories.dataHome + "/courier/manifests/com.acme.recorder.plist"
        var plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: manifest)), format: nil) as? [String: Any])
        let launch = try #require(plist["CourierLaunchArguments"] as? [String])
        plist["CourierLaunchArguments"] = ["/bin/sh", "-c", "echo \"out: $COURIER_BUNDLE_ID\"; echo 'err: on standard error' >&2; exec \"$@\"", "sh"] + launch
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: manifest))

        let namespace = """
            set -e
            mount -t tmpfs tmpfs /run
            mkdir -p /run/systemd/journal /run/log
            if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
            exec \(journald)
            """
        let holder = try BackgroundProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", namespace],
                                           environment: ["PATH": "/usr/bin:/bin"], outputIn: URL(fileURLWithPath: setup.home.root), name: "journald")
        defer { holder.kill() }
        let socket = "/proc/\(holder.pid)/root/run/systemd/journal/stdout"
        #expect(await eventually { FileManager.default.fileExists(atPath: socket) }, "journald did not start: \(holder.errors)")

        var environment = setup.environment
        environment["COURIER_DESKTOP_ENTRIES"] = "0"
        environment["XDG_STATE_HOME"] = setup.home.root + "/state"
        let courierd = try BackgroundProcess("/usr/bin/nsenter", ["--mount=/proc/\(holder.pid)/ns/mnt", "--", InstallScriptTests.binDirectory + "/courierd"],
                                             environment: environment, outputIn: URL(fileURLWithPath: setup.home.root), name: "courierd")
        defer { courierd.kill() }
        let courier = InstallScriptTests.binDirectory + "/courier"
        #expect(try await eventually { try await run(courier, ["status"], environment: environment).status == 0 })

        #expect(try await run(courier, ["open", "todolist://journal/1"], environment: environment).status == 0)
        #expect(await base.recorded(setup.record, count: 1) == ["todolist://journal/1"])

        // journalctl reads the app's lines under its bundle id; courier log reads them there too.
        let journal = ["/bin/journalctl", "-t", "com.acme.recorder", "-o", "cat", "--no-pager", "-q"]
        var lines = ""
        #expect(try await eventually {
            lines = try await inside(holder.pid, journal, environment).output
            return lines.contains("out: com.acme.recorder\n") && lines.contains("err: on standard error\n")
        }, "the journal has: \(lines)")
        #expect(lines.hasPrefix("--- courierd launches com.acme.recorder: /bin/sh -c"), "\(lines)")
        let log = try await inside(holder.pid, [courier, "log", "com.acme.recorder"], environment)
        #expect(log.status == 0 && log.output == lines, "\(log)")
        let last = try await inside(holder.pid, [courier, "log", "-n", "1", "com.acme.recorder"], environment)
        #expect(last.output == "err: on standard error\n" || last.output == "out: com.acme.recorder\n", "\(last)")
        #expect(!FileManager.default.fileExists(atPath: setup.home.root + "/state/courier/logs/com.acme.recorder.log"), "the output went to the file as well")

        // journald gone, its socket left behind: the next launch says why its output is in the file.
        holder.kill()
        _ = await holder.wait()
        #expect(try await run(courier, ["quit", "com.acme.recorder"], environment: environment).status == 0)
        #expect(try await run(courier, ["open", "todolist://journal/2"], environment: environment).status == 0)
        #expect(await base.recorded(setup.record, count: 2) == ["todolist://journal/1", "todolist://journal/2"])
        let file = setup.home.root + "/state/courier/logs/com.acme.recorder.log"
        let text = String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
        #expect(text.contains("(journald runs but did not take the output (connect to /run/systemd/journal/stdout failed: Connection refused"), "\(text)")
        #expect(text.contains("out: com.acme.recorder\n"), "\(text)")
        #expect(courierd.errors.contains("courierd: com.acme.recorder: journald runs but did not take the output"), "\(courierd.errors)")
    }
}
