#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts programs with `posix_spawn(3)` and a clean slate: the one spawner of the broker (apps it
/// launches) and of the desktop edge (`gio`, `xdg-open`, …).
///
/// The child gets exactly `arguments` as its argv (argv[0] included, no shell) and `environment`.
/// Standard input is `/dev/null` (a launched program must not read the launcher's terminal or
/// socket), standard output and error are inherited unless `discardOutput`. Every descriptor above
/// 2 is closed in the child (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34+): not the bus
/// socket, nor an Inbox file being copied, nor a descriptor another thread has just opened without
/// `O_CLOEXEC`. The signal mask is emptied and every handler reset to its default, so the child
/// does not inherit the launcher's choices (an ignored `SIGPIPE`, a blocked `SIGCHLD`).
public enum Spawner {
    /// Starts `path` and returns its pid; the caller reaps it (`waitpid`).
    /// - Throws: `SpawnError` with the `errno` of the failed `posix_spawn` (`ENOENT`, `EACCES`,
    ///   `ENOEXEC`, …): glibc reports a failed `exec` in the child to the caller.
    public static func spawn(path: String, arguments: [String], environment: [String: String],
                             discardOutput: Bool = false) throws(SpawnError) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if discardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        if result != 0 { throw SpawnError(errno: result) }
        return pid
    }

    /// Whether the C library can close inherited descriptors in the child (glibc 2.34+).
    public static var closesInheritedDescriptors: Bool { addCloseFrom != nil }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), which the Glibc module does not
    /// import: looked up once by name, `nil` on older C libraries.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
