public import CourierProcess
public import Foundation
import Synchronization

/// A program a test runs beside itself (a command-line peer such as gdbus or python3, a courierd,
/// a product of this package), started by the shared `Spawner` (clean signal state, standard
/// input `/dev/null`, only descriptors 0–2 inherited) with its output in files.
///
/// A dedicated thread blocks in `waitpid` from the start, so the child is reaped whatever the test
/// does, and `wait()` suspends without holding a Swift concurrency thread; no run loop and no
/// `Foundation.Process` is involved (its `waitUntilExit` hangs in async tests).
public final class BackgroundProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    /// Where its standard output and standard error go (`/dev/null` for a discarded one).
    public let stdoutPath: String
    public let stderrPath: String
    private let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    /// `executable` could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let executable: String
        public let cause: SpawnError
        public var description: String { "cannot start \(executable): \(cause)" }
    }

    /// Starts `executable` with `arguments` (argv[0] excluded) and exactly `environment`, its
    /// output and errors written (truncated first) to the files at `stdoutPath` and `stderrPath`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                stdoutPath: String, stderrPath: String) throws(StartError) {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        let child: ChildProcess
        do {
            child = try Spawner.start(path: executable, arguments: [executable] + arguments, environment: environment,
                                      standardOutput: Self.output(stdoutPath), standardError: Self.output(stderrPath))
        } catch {
            throw StartError(executable: executable, cause: error)
        }
        pid = child.pid
        Thread.detachNewThread { [self] in
            let code = child.wait().shellStatus
            let waiters = state.withLock { state in
                state.status = code
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: code) }
        }
    }

    /// Starts `executable` with its output in `folder`/`name`.out and `name`.err.
    public convenience init(_ executable: String, _ arguments: [String], environment: [String: String],
                            outputIn folder: URL, name: String) throws(StartError) {
        try self.init(executable, arguments, environment: environment,
                      stdoutPath: folder.appendingPathComponent("\(name).out").path,
                      stderrPath: folder.appendingPathComponent("\(name).err").path)
    }

    /// What `run` returns: the exit status (128 + the signal when killed) and the output.
    public struct Completed: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// Runs `executable` to completion with its output in a temporary folder (removed after), and
    /// returns its status and output. Files rather than pipes: a child that fills one pipe while
    /// the test reads the other cannot stall.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> Completed {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try BackgroundProcess(executable, arguments, environment: environment, outputIn: folder, name: "run")
        let status = await child.wait()
        return Completed(status: status, output: child.output, errors: child.errors)
    }

    private static func output(_ path: String) -> SpawnOutput {
        path == "/dev/null" ? .discard : .file(path)
    }

    /// The exit status (128 + the signal when killed), once the process has ended.
    public var exitStatus: Int32? { state.withLock { $0.status } }

    /// Waits for the process to end; returns its exit status (128 + the signal when killed).
    public func wait() async -> Int32 {
        await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
            let done = state.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    /// Waits at most `timeout` for the process to end; `nil` if it still runs then.
    public func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus
    }

    /// What it wrote to standard output / standard error so far.
    public var output: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var errors: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` unless the process has ended (then its pid may already be someone else's).
    public func signal(_ signal: Int32) {
        guard exitStatus == nil else { return }
        sendSignal(pid, signal)
    }

    /// SIGKILLs the process unless it has ended; the waiting thread reaps it (`await wait()` to
    /// know it is gone).
    public func kill() {
        signal(SIGKILL)
    }
}

/// `kill(2)`, under a name `BackgroundProcess.kill()` does not shadow.
private func sendSignal(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
