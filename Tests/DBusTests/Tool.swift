import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command-line peer (gdbus, busctl, dbus-send, python3) to completion without blocking a
/// Swift concurrency thread, and returns its exit status and output.
struct ToolResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Tool {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> ToolResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let outData = OutputCollector(out.fileHandleForReading)
        let errData = OutputCollector(err.fileHandleForReading)
        let status: Int32 = try await withCheckedThrowingContinuation { c in
            p.terminationHandler = { c.resume(returning: $0.terminationStatus) }
            do { try p.run() } catch { c.resume(throwing: error) }
        }
        return ToolResult(status: status, stdout: outData.finish(), stderr: errData.finish())
    }

    /// Starts a long-running peer (output discarded, so it never holds the test runner's pipes);
    /// stop it with `kill`.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// SIGKILL, then reap: children started from Swift's thread pool may have SIGTERM blocked.
    static func kill(_ p: Process) {
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }
}

/// Drains a pipe on a background thread so a chatty child never blocks on a full pipe.
final class OutputCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
