import BusTestSupport
import Foundation
import CourierDesktop
import CourierNames

/// A throw-away home with its own XDG folders, and an environment for the real desktop tools
/// (`gio`, `xdg-open`, `xdg-mime`) that sees only that home: no system desktop entries, no session
/// bus, no desktop session (so `xdg-open` takes its generic path).
final class TemporaryDesktopHome: Sendable {
    let root: String
    let directories: CourierLayout

    init() throws {
        let template = NSTemporaryDirectory() + "courier-desktop-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CocoaError(.fileWriteUnknown)
        }
        root = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        directories = CourierLayout(environment: ["HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config"])
        for folder in ["/data/applications", "/config", "/bin", "/empty"] {
            try FileManager.default.createDirectory(atPath: root + folder, withIntermediateDirectories: true)
        }
    }

    deinit {
        // A broker or app of the test may still be writing here while its bus goes away: retry.
        for _ in 0..<20 {
            if (try? FileManager.default.removeItem(atPath: root)) != nil || !FileManager.default.fileExists(atPath: root) { return }
            usleep(50_000)
        }
    }

    /// The environment for the desktop tools. `display` sets a (fake) `DISPLAY`, which `xdg-open`'s
    /// generic path requires before it consults `mimeapps.list`; nothing connects to it.
    func environment(display: Bool = false, path: String = "/usr/bin:/bin") -> [String: String] {
        var environment = [
            "HOME": root,
            "PATH": path,
            "XDG_DATA_HOME": directories.dataHome,
            "XDG_CONFIG_HOME": directories.configHome,
            "XDG_DATA_DIRS": root + "/empty",
            "XDG_CONFIG_DIRS": root + "/empty",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(root)/no-bus",
            "LANG": "C.UTF-8",
        ]
        if display { environment["DISPLAY"] = ":99" }
        return environment
    }

    /// Writes a program that records its arguments, NUL-terminated, into `output` (atomically:
    /// the file appears complete or not at all). Returns its path.
    func makeRecorder(named name: String = "recorder", output: String) throws -> String {
        let path = root + "/bin/" + name
        let script = """
            #!/bin/sh
            out=\(shellQuoted(output))
            : > "$out.tmp"
            for argument in "$@"; do printf '%s\\0' "$argument" >> "$out.tmp"; done
            mv "$out.tmp" "$out"

            """
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Written through an O_CLOEXEC descriptor: a writable descriptor that leaked into a
        // program another test starts meanwhile would make exec(2) of this script fail with
        // ETXTBSY after gio has already reported success (it starts apps through a helper).
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array(script.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// Waits (bounded) for a recorder's output and returns the recorded arguments; `nil` if the
    /// recorder never ran. A launcher may return before the program it started has finished.
    func recordedArguments(at output: String, waitingUpTo seconds: Double = 10) async -> [String]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: output) {
                try? FileManager.default.removeItem(atPath: output)
                var arguments = data.split(separator: 0, omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }
                if arguments.last == "" { arguments.removeLast() }
                return arguments
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Every path under the root, for failure messages.
    func listing() -> [String] {
        (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []).sorted()
    }

    func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// Single-quotes a string for sh (used only to write the recorder script).
func shellQuoted(_ string: String) -> String {
    "'" + string.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Runs blocking work (waiting for a process) on a Dispatch thread, off Swift's cooperative pool:
/// that pool has one thread per core, and a test blocking one there starves the async tests (and
/// their timeouts) running beside it.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs a program with an argv to completion (`BackgroundProcess`) and returns its exit status and
/// standard output.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
    let completed = try await BackgroundProcess.run(program, arguments, environment: environment)
    return (completed.status, completed.output)
}

/// URLs that break launchers which go through a shell or mis-handle quoting and field codes.
let hostileURLs: [String] = [
    "todolist://www.acme.com?Quarterly%20Report#200806231300",
    "todolist://x/a b  c ",
    "todolist://x?q=\"double\"&r='single'",
    "todolist://x?$HOME&${PATH}&$(id)",
    "todolist://x?`id`;echo pwned",
    "todolist://x?a;b&c|d>e<f",
    "todolist://x?%u %U %f %F %% %c %k %i %",
    "todolist:-rf",
    "todolist://-x/--help",
    "todolist://x/back\\slash\\\\two",
    "todolist://x/*?[a]~#!",
    "todolist://x/caf\u{E9}/\u{2713}",
]
