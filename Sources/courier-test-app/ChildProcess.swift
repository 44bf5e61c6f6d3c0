import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` (not Foundation.Process: waiting and killing must
/// never depend on a run loop), with default signal dispositions and an empty mask, stdout and
/// stderr optionally redirected to files.
struct ChildProcess: Sendable {
    let pid: pid_t

    static func spawn(_ argv: [String], environment: [String: String], stdout: String? = nil, stderr: String? = nil) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cargs = argv.map { strdup($0) } + [nil]
        let cenv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cargs + cenv).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cargs, cenv)
        guard rc == 0 else { throw LoadError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        return ChildProcess(pid: pid)
    }

    /// How a child ended.
    enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// Waits until the child ends or `timeout` passes (then nil; the child is left running).
    func wait(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            var status: Int32 = 0
            let rc = waitpid(pid, &status, WNOHANG)
            if rc == pid {
                let signal = status & 0x7f
                return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            }
            if rc < 0 && errno != EINTR { return .exited(-1) }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// SIGKILL and reap.
    func kill9() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
