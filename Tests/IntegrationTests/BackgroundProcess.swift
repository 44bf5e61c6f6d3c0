import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program started in the background (posix_spawn, output into files), waited for with
/// `waitpid` on a dedicated thread started at once: no run loop and no Foundation.Process involved, and the child
/// starts with an empty signal mask and default dispositions so SIGTERM/SIGKILL behave.
final class BackgroundProcess: Sendable {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    init(_ executable: String, _ arguments: [String], environment: [String: String], outputIn folder: URL, name: String) throws {
        stdoutPath = folder.appendingPathComponent("\(name).out").path
        stderrPath = folder.appendingPathComponent("\(name).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
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
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attr, &cargs, &cenv)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
        // One thread per child blocked in waitpid(pid): it reaps the child whatever the test does.
        Thread.detachNewThread { [self, child] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            let waiters = state.withLock { state in
                state.status = code
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: code) }
        }
    }

    /// The exit status (128+signal when killed), once the process has ended.
    var exitStatus: Int32? { state.withLock { $0.status } }

    /// Waits for the process to end; returns its exit status (128+signal when killed).
    func wait() async -> Int32 {
        await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
            let done = state.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    var output: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// SIGKILLs the process unless it has ended (the waiter thread reaps it).
    func kill() {
        guard exitStatus == nil else { return }
        Glibc.kill(pid, SIGKILL)
    }
}
