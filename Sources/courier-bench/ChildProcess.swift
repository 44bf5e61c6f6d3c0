#if canImport(Glibc)
import Glibc
#endif

/// A child process of the benchmark, started with `posix_spawn` and reaped with `waitpid`.
///
/// Why not `Foundation.Process`: on Linux its `waitUntilExit` only notices the exit when the run
/// loop of the thread that *launched* the process runs; after an `await` the caller is usually on
/// another thread of the cooperative pool, and the wait never ends (that hung `courier-bench
/// broker` at shutdown after it had printed everything). Spawning from a pool thread also hands
/// the child that thread's blocked signal mask (SIGTERM ignored): the mask and dispositions are
/// reset here.
struct ChildProcess: Sendable {
    let pid: Int32
    /// The read end of the child's standard output when `captureOutput` was set (the caller closes it).
    let output: Int32?

    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `path` with `arguments` (argv[0] excluded) and `environment` (nil: the benchmark's own).
    /// Standard output goes to a pipe when `captureOutput` is true, else to /dev/null; standard
    /// error goes to /dev/null when `quiet`, else it is inherited.
    static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        captureOutput: Bool = false, quiet: Bool = false
    ) throws(SpawnError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeFDs) == 0 else { throw SpawnError(description: "pipe failed: errno \(errno)") }
            // Close-on-exec, so no other child inherits either end (dup2 clears it on the child's 1).
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
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

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc: Int32
        if let envp {
            rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        } else {
            rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        }
        if captureOutput { close(pipeFDs[1]) }
        guard rc == 0 else {
            if captureOutput { close(pipeFDs[0]) }
            throw SpawnError(description: "cannot run \(path): \(String(cString: strerror(rc)))")
        }
        return ChildProcess(pid: pid, output: captureOutput ? pipeFDs[0] : nil)
    }

    /// Reads the captured output until `marker` appears; false when the child closed it first.
    func readOutput(until marker: String) -> Bool {
        guard let output else { return false }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !String(decoding: text, as: UTF8.self).contains(marker) {
            let n = read(output, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            text += buffer[0..<n]
        }
        return true
    }

    /// Waits for the child and returns its raw wait status.
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// SIGTERM, then SIGKILL if the child is still there after `grace`; always reaps it.
    func stop(grace: Duration = .seconds(2)) {
        if let output { close(output) }
        kill(pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        var status: Int32 = 0
        while clock.now < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r == -1 && errno != EINTR) { return }
            usleep(2_000)
        }
        kill(pid, SIGKILL)
        wait()
    }

    /// True when a wait status means "exited with status 0".
    static func succeeded(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
    /// The exit code of a wait status (128 + signal for a killed child).
    static func exitCode(_ status: Int32) -> Int32 { status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
}
