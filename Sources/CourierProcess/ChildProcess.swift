#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A process started by `Spawner.start`: its pid and, when an output went to `.pipe`, the read
/// end of that pipe.
///
/// The value is the handle of one child: whoever holds it reaps the child exactly once (`wait`,
/// `stop`, `kill`, or a `poll` / `wait(timeout:)` that returned its termination) and closes
/// `output` (`closeOutput`, or `stop` / `kill`, which do). Copies name the same child, so hand the
/// value on rather than sharing it between owners (`output` is a shared reference that closes its
/// descriptor once, whichever copy closes it). Waiting and killing are plain `waitpid` and
/// `kill(2)`: nothing depends on a run loop.
public struct ChildProcess: Sendable {
    /// The child's process id (also its process group id under `newProcessGroup`).
    public let pid: Int32
    /// The read end of the pipe the child writes to (`SpawnOutput.pipe`); `nil` otherwise.
    public let output: PipeReadEnd?

    /// How a child ended (`CourierDesktop.ExitStatus` and `CourierBroker.ExitStatus` are this type).
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It called `exit(code)`.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// Decodes a `waitpid` status (`WIFEXITED` / `WEXITSTATUS` / `WTERMSIG` are macros Swift
        /// cannot import).
        public init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        }

        /// The status a shell would report: the exit code, or 128 + the signal number.
        public var shellStatus: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }

        /// "exit status 3", "killed by signal 9".
        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }

        /// How the process ended, as a verb phrase after its name: "exited with status 3",
        /// "was killed by signal 9".
        public var ending: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "was killed by signal \(signal)"
            }
        }
    }

    public init(pid: Int32, output: PipeReadEnd? = nil) {
        self.pid = pid
        self.output = output
    }

    // MARK: Output

    /// Reads `output` until `marker` appears and returns everything read so far (the marker
    /// included); `nil` when the child closed it first or nothing was piped.
    public func readOutput(until marker: String) -> String? {
        output?.read(until: marker)
    }

    /// Closes `output`, if there is one (the child gets `SIGPIPE` if it writes on); closing
    /// again, from this value or a copy, does nothing.
    public func closeOutput() {
        output?.close()
    }

    // MARK: Waiting

    /// Reaps the child if it has ended (`WNOHANG`); `nil` while it runs. `.exited(-1)` when it
    /// is not (or no longer) this process's child.
    public func poll() -> Termination? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return Termination(waitStatus: status) }
            if result == 0 { return nil }
            if errno != EINTR { return .exited(-1) }
        }
    }

    /// Blocks the calling thread until the child ends and reaps it. `.exited(-1)` when it is not
    /// (or no longer) this process's child. Not for a Swift concurrency thread when the child may
    /// take long: use `wait(timeout:)` there.
    @discardableResult
    public func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .exited(-1) }
        }
        return Termination(waitStatus: status)
    }

    /// Waits without blocking a thread (polls every 20 ms) until the child ends, and reaps it;
    /// `nil` when `timeout` passes first (the child is left running).
    public func wait(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination = poll() { return termination }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: Ending

    /// Sends `signal` to the child (to its whole process group when `processGroup`).
    public func signal(_ signal: Int32, processGroup: Bool = false) {
        sendSignal(processGroup ? -pid : pid, signal)
    }

    /// `SIGKILL` (to the whole process group when `processGroup`), then reaps the child and closes `output`.
    public func kill(processGroup: Bool = false) {
        closeOutput()
        signal(SIGKILL, processGroup: processGroup)
        wait()
    }

    /// Closes `output`, sends `SIGTERM`, and `SIGKILL` if the child is still there after `grace`;
    /// always reaps it. Returns how it ended.
    @discardableResult
    public func stop(grace: Duration = .seconds(2)) -> Termination {
        closeOutput()
        signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            if let termination = poll() { return termination }
            usleep(2_000)
        }
        signal(SIGKILL)
        return wait()
    }
}

/// `kill(2)`, under a name the methods above do not shadow.
private func sendSignal(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
