#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts programs with `posix_spawn(3)` and a clean slate: the one spawner of the broker (apps it
/// launches), the desktop edge (`gio`, `xdg-open`, …), the benchmark and load harnesses and the
/// tests' helper processes.
///
/// The child gets exactly `arguments` as its argv (argv[0] included, no shell). Standard input is
/// `/dev/null` (a launched program must not read the launcher's terminal or socket); standard
/// output and error go where `SpawnOutput` says. Every descriptor above 2 is closed in the child
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34+): not the bus socket, nor an Inbox file
/// being copied, nor a descriptor another thread has just opened without `O_CLOEXEC`. The signal
/// mask is emptied and every handler reset to its default, so the child does not inherit the
/// launcher's choices (an ignored `SIGPIPE`, a blocked `SIGCHLD`, the blocked `SIGTERM` of a Swift
/// concurrency thread).
///
/// Why not `Foundation.Process`: on Linux its `waitUntilExit` only notices the exit when the run
/// loop of the thread that launched the process runs; after an `await` the caller is usually on
/// another thread of the cooperative pool and the wait never ends.
public enum Spawner {
    /// Starts `path` and returns the child, which the caller owns: it reaps it (`wait`, `stop`,
    /// `kill`, or a `poll`/`wait(timeout:)` that returned its termination) and, for `.pipe`,
    /// reads and closes `output`.
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes the launcher's own.
    ///   - newProcessGroup: the child leads a process group of its own (`setpgid(0, 0)`), so that
    ///     it and everything it starts can be signalled at once (`ChildProcess.kill(processGroup:)`).
    /// - Throws: `SpawnError` with the `errno` of the failed `pipe` or `posix_spawn` (`ENOENT`,
    ///   `EACCES`, `ENOEXEC`, …: glibc reports a failed `exec` in the child to the caller).
    public static func start(path: String, arguments: [String], environment: [String: String]? = nil,
                             standardOutput: SpawnOutput = .inherit, standardError: SpawnOutput = .inherit,
                             newProcessGroup: Bool = false) throws(SpawnError) -> ChildProcess {
        var pipeEnds: [Int32] = [-1, -1]
        let piped = standardOutput == .pipe || standardError == .pipe
        if piped {
            guard pipe(&pipeEnds) == 0 else { throw SpawnError(errno: errno) }
            // Close-on-exec, so no other child inherits either end (dup2 clears it on the child's
            // 1 or 2). The Glibc module does not import pipe2, which would set it atomically.
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        redirect(&actions, 1, to: standardOutput, pipe: pipeEnds[1])
        redirect(&actions, 2, to: standardError, pipe: pipeEnds[1])
        // Only 0, 1 and 2 reach the child.
        if let closeFrom = addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = if let envp {
            posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        } else {
            posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        }
        if piped { close(pipeEnds[1]) }
        guard result == 0 else {
            if piped { close(pipeEnds[0]) }
            throw SpawnError(errno: result)
        }
        return ChildProcess(pid: pid, output: piped ? PipeReadEnd(pipeEnds[0]) : nil)
    }

    /// Whether the C library can close inherited descriptors in the child (glibc 2.34+).
    public static var closesInheritedDescriptors: Bool { addCloseFrom != nil }

    /// Adds the file action that points `descriptor` (1 or 2) at `output`.
    private static func redirect(_ actions: inout posix_spawn_file_actions_t, _ descriptor: Int32,
                                 to output: SpawnOutput, pipe writeEnd: Int32) {
        switch output {
        case .inherit:
            break
        case .discard:
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
        case .file(let path, let append):
            posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
        case .pipe:
            posix_spawn_file_actions_adddup2(&actions, writeEnd, descriptor)
        case .standardOutput:
            posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
        case .descriptor(let source):
            posix_spawn_file_actions_adddup2(&actions, source, descriptor)
        }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), which the Glibc module does not
    /// import: looked up once by name, `nil` on older C libraries.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
