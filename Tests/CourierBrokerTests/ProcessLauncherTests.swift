import CourierBroker
import CourierNames
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ProcessLauncher` on real processes: what an app inherits from the broker.
@Suite("ProcessLauncher")
struct ProcessLauncherTests {
    /// The broker's descriptors (its bus socket, a file being dropped, anything opened without
    /// `O_CLOEXEC`) stay in the broker: the app starts with 0, 1 and 2 only.
    @Test func anAppDoesNotInheritTheBrokersDescriptors() async throws {
        let directory = TemporaryDirectory()
        let listing = directory.url.appendingPathComponent("fds.txt").path
        // A descriptor the child would inherit without the spawner's close-from: not O_CLOEXEC,
        // at a number nothing else in this process uses (F_DUPFD takes the lowest free one ≥ 300).
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let leaky = fcntl(devNull, F_DUPFD, 300)
        close(devNull)
        #expect(leaky >= 300)
        defer { close(leaky) }

        let launcher = ProcessLauncher(layout: CourierLayout(environment: ["XDG_DATA_HOME": directory.url.path]))
        // The shell lists its own descriptors with builtins only (no child process of its own).
        let script = #"for fd in /proc/$$/fd/*; do echo "${fd##*/}"; done > "$0""#
        let exited: Void = await withCheckedContinuation { continuation in
            do {
                _ = try launcher.launch(LaunchSpec(bundleID: "org.example.test.fds", arguments: ["/bin/sh", "-c", script, listing])) { _, _ in
                    continuation.resume()
                }
            } catch {
                Issue.record("launch failed: \(error)")
                continuation.resume()
            }
        }
        _ = exited
        let contents = try String(contentsOfFile: listing, encoding: .utf8)
        let descriptors = Set(contents.split(separator: "\n").compactMap { Int32($0) })
        #expect(descriptors.isSuperset(of: [0, 1, 2]), "\(descriptors)")
        #expect(!descriptors.contains(leaky), "the app inherited the broker's descriptor \(leaky): \(descriptors.sorted())")
        #expect(descriptors.allSatisfy { $0 < 300 }, "\(descriptors.sorted())")
    }
}

extension ProcessLauncherTests {
    /// An end's last lines: the newest `count` lines of the log, without the launch headers or
    /// empty lines, each at most 512 bytes; none for a log that is not there.
    @Test func theLogTailIsTheNewestLinesWithoutHeaders() throws {
        let directory = TemporaryDirectory()
        let layout = CourierLayout(environment: ["XDG_STATE_HOME": directory.url.path, "XDG_DATA_HOME": directory.url.path])
        let launcher = ProcessLauncher(layout: layout)
        let app = try BundleIdentifier("org.example.test.tail")
        #expect(launcher.logTail(bundleID: app.rawValue, lines: 3).isEmpty)
        try FileManager.default.createDirectory(atPath: layout.logsFolder, withIntermediateDirectories: true)
        let long = String(repeating: "é", count: 400)
        let text = "--- courierd launches x\none\ntwo\n\n--- courierd launches x\nthree\n\(long)\nfour\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: layout.log(for: app)))
        #expect(launcher.logTail(bundleID: app.rawValue, lines: 3) == ["three", String(repeating: "é", count: 256), "four"])
        #expect(launcher.logTail(bundleID: app.rawValue, lines: 10) == ["one", "two", "three", String(repeating: "é", count: 256), "four"])
        #expect(launcher.logTail(bundleID: app.rawValue, lines: 0).isEmpty)
    }
}
