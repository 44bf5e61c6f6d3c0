import CProcessHandle
#if canImport(Glibc)
import Glibc
#endif

/// An open `/proc/PID` directory: one process, held from the moment it was verified.
///
/// `/proc` binds each directory to the process it was opened for, not to the number: once that
/// process has exited, everything under the directory reads as gone, even after the kernel gives
/// its pid to another process. So the executable read through a handle is always that of the
/// process verified at `CheckIn` or nothing — unlike `/proc/PID/exe` by path, which would follow a
/// reused pid to whatever runs under it now — and reading it is one `fstatat` relative to the open
/// directory, without building a path or walking `/proc` (see `courier-bench broker`, section 1).
///
/// The open directory is also a pidfd for `pidfd_send_signal(2)`: a process the broker did not
/// launch (adopted after a restart, or started by hand) but verified is signalled through its
/// handle, never by number, so a signal can only reach the process that was verified.
public final class ProcessHandle: Sendable {
    public let pid: Int32
    private let directory: Int32

    /// Opens `/proc/PID` (a directory every user may list); nil when the process
    /// is gone or no descriptor is left.
    public init?(pid: Int32) {
        guard pid > 0 else { return nil }
        let fd = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.pid = pid
        self.directory = fd
    }

    deinit { close(directory) }

    /// The identity of the file the process executes now (`exe`, links followed); nil once it has
    /// exited or cannot be inspected.
    public var executable: FileIdentity? {
        var status = stat()
        guard fstatat(directory, "exe", &status, 0) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Sends `signal` to this process; false when it has exited (its pid may name another
    /// process by now: that one is never signalled).
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        cprocesshandle_send_signal(directory, signal) == 0
    }

    /// Whether this process is still running (a null signal through the handle).
    public var isRunning: Bool { send(0) }

    /// SIGTERM now, then SIGKILL if it is still running after `grace`: what `Launcher.terminate`
    /// does for a child, for a process held by its handle.
    public func terminate(grace: Duration) {
        guard send(SIGTERM) else { return }
        Task { [self] in
            try? await Task.sleep(for: grace)
            send(SIGKILL)
        }
    }
}
