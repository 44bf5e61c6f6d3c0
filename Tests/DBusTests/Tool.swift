import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command-line peer (gdbus, busctl, dbus-send, python3) to completion without blocking a
/// Swift concurrency thread, and returns its exit status and output.
///
/// Uses posix_spawn with output in files rather than Foundation's Process and pipes: no
/// descriptor is ever closed twice (a double close can hit a D-Bus socket another test just
/// opened), and children start with an empty signal mask so SIGKILL/SIGTERM behave.
struct ToolResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A spawned child process; `kill()` stops and reaps it.
final class Child: Sendable {
    let pid: pid_t
    private let reaped = Mutex(false)

    init(pid: pid_t) { self.pid = pid }

    /// Waits for exit on a dedicated thread; returns the exit status (or 128+signal).
    func wait() async -> Int32 {
        await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
            let pid = self.pid
            Thread.detachNewThread { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                reaped.withLock { $0 = true }
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                c.resume(returning: code)
            }
        }
    }

    func kill() {
        guard !reaped.withLock({ $0 }) else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped.withLock { $0 = true }
    }
}

enum Tool {
    static func spawn(_ executable: String, _ arguments: [String], environment: [String: String], stdout: String, stderr: String) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = [executable] + arguments
        var cargs = argv.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        var cenv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in cenv { free(e) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attr, &cargs, &cenv)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        return Child(pid: pid)
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> ToolResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let err = dir.appendingPathComponent("err").path
        let child = try spawn(executable, arguments, environment: environment, stdout: out, stderr: err)
        let status = await child.wait()
        return ToolResult(
            status: status,
            stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    /// Starts a long-running peer with its output discarded; stop it with `kill()`.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Child {
        try spawn(executable, arguments, environment: environment, stdout: "/dev/null", stderr: "/dev/null")
    }
}
