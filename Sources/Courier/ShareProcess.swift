import FoundationEssentials
import DBus
#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program of a share activity (the clipboard tool, `courier nearby send`): argv as
/// given (no shell), `input` on its standard input, its standard error the caller's (a clipboard
/// tool forks to serve the selection: a captured stream would never end). Waited for on a thread
/// of its own, never on the cooperative pool. Returns the exit status (128 + signal when killed).
enum ShareProcess {
    static func run(_ argv: [String], input: [UInt8] = []) async throws(CourierError) -> Int32 {
        var inPipe: [Int32] = [-1, -1]
        guard pipe(&inPipe) == 0 else { throw CourierError(.failed, "cannot make a pipe for \(argv[0]): \(String(cString: strerror(errno)))") }
        // The write end must not leak into the helper (it would never see the end of its input).
        _ = fcntl(inPipe[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        var argvC = argv.map { strdup($0) } + [nil]
        defer { argvC.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, &argvC, environ)
        close(inPipe[0])
        guard rc == 0 else {
            close(inPipe[1])
            throw CourierError(.failed, "cannot run \(argv[0]): \(String(cString: strerror(rc)))")
        }
        let writeEnd = inPipe[1]
        return await withCheckedContinuation { continuation in
            DetachedThread.start("share helper") {
                input.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        // MSG_NOSIGNAL does not apply to pipes: a helper that exits early is EPIPE,
                        // SIGPIPE being ignored by the caller or not.
                        let n = write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                        if n < 0 { if errno == EINTR { continue }; break }
                        offset += n
                    }
                }
                close(writeEnd)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                continuation.resume(returning: code)
            }
        }
    }
}
