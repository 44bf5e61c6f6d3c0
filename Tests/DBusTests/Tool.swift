import BusTestSupport
import Foundation

/// Runs a command-line peer (gdbus, busctl, dbus-send, python3) without blocking a Swift
/// concurrency thread, through BusTestSupport's `BackgroundProcess` (posix_spawn with output in
/// files rather than Foundation's Process and pipes: no descriptor is ever closed twice, which
/// could hit a D-Bus socket another test just opened, and children start with an empty signal
/// mask so SIGKILL/SIGTERM behave).
struct ToolResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Tool {
    /// Runs `executable` to completion; returns its exit status (128 + signal) and output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> ToolResult {
        let completed = try await BackgroundProcess.run(executable, arguments, environment: environment)
        return ToolResult(status: completed.status, stdout: completed.output, stderr: completed.errors)
    }

    /// Starts a long-running peer with its output discarded; stop it with `kill()`.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> BackgroundProcess {
        try BackgroundProcess(executable, arguments, environment: environment, stdoutPath: "/dev/null", stderrPath: "/dev/null")
    }
}
