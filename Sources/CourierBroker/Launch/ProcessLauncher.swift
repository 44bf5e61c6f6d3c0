public import CourierNames
public import CourierProcess
public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Spawns app processes with `posix_spawn` — argv executed directly, never through a shell — and
/// reaps them.
///
/// The child gets the launcher's base environment plus `DBUS_SESSION_BUS_ADDRESS` (the bus the
/// broker is on), `COURIER_BUNDLE_ID` and `COURIER_CONTAINER`; its container (with `Documents/`) is
/// created first. Its standard output and error go to the systemd journal when journald runs (a
/// stream to its socket, `JournalStream`, with the bundle id as `SYSLOG_IDENTIFIER`), else are
/// appended to its log (`CourierLayout.log(for:)`, mode 0600, rotated past 1 MiB); either way with
/// a header line per launch, and `courier log BUNDLE_ID` shows them: a
/// bus-activated broker has no terminal, and apps must not write into the broker's own log. The
/// child is started by the shared `Spawner`: standard input `/dev/null`, no
/// descriptor of the broker above 2 (not its bus socket, not a file being dropped), signal
/// dispositions and the mask reset to defaults (the broker ignores SIGPIPE; apps should not
/// inherit that). Every child is reaped by a small dedicated
/// thread blocked in `waitpid(pid)`: libdispatch has no process sources on Linux, and a
/// `waitpid(-1)` reaper would steal the children of other parts of the process.
///
/// Safe against pid reuse: the reaper first waits without reaping (`waitid` with `WNOWAIT`), then
/// forgets the pid under the lock, and only then reaps it. A pid in `live` is therefore never
/// reaped, so it cannot name another process — the guarantee a pidfd gives, without one.
public final class ProcessLauncher: Launcher {
    private let baseEnvironment: [String: String]
    private let layout: CourierLayout
    /// journald's stream socket, used when a socket is there; `nil` writes the log files only.
    private let journalSocket: String?
    /// pid → bundle id of the children spawned and not yet reaped: `terminate` never signals, and
    /// `isRunningChild` never vouches for, a pid that may have been reused.
    private let live = Mutex<[Int32: String]>([:])

    /// - Parameters:
    ///   - environment: the base environment of every app (defaults to the broker's own).
    ///   - busAddress: exported as `DBUS_SESSION_BUS_ADDRESS` when given.
    ///   - layout: where containers are created (defaults to the layout of `environment`).
    ///   - journalSocket: journald's stream socket (`nil`: never the journal).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, busAddress: String? = nil, layout: CourierLayout? = nil,
                journalSocket: String? = JournalStream.defaultSocketPath) {
        var environment = environment
        if let busAddress { environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        self.baseEnvironment = environment
        self.layout = layout ?? CourierLayout(environment: environment)
        self.journalSocket = journalSocket
    }

    /// Creates the app's container and its `Documents/` (mode 0700) when missing; returns the container.
    private func prepareContainer(for bundleID: String) throws(CourierError) -> String {
        let app: BundleIdentifier
        do { app = try BundleIdentifier(bundleID) } catch {
            throw CourierError(.launchFailed, "\(error); fix CFBundleIdentifier in its manifest")
        }
        let container = layout.container(for: app)
        let documents = container + "/Documents"
        do {
            try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CourierError(.launchFailed, "cannot create the container of \(bundleID) at \(documents): \(error.localizedDescription)")
        }
        return container
    }

    public func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (Int32, ExitStatus) -> Void) throws(CourierError) -> Int32 {
        guard let name = spec.arguments.first, !name.isEmpty else {
            throw CourierError(.launchFailed, "\(spec.bundleID) has an empty launch command; set CourierLaunchArguments in its manifest")
        }
        guard !spec.arguments.contains(where: { $0.contains("\0") }) else {
            throw CourierError(.launchFailed, "the launch command of \(spec.bundleID) contains a NUL byte")
        }
        var environment = baseEnvironment.merging(spec.environment) { _, new in new }
        let path = try executablePath(for: name, bundleID: spec.bundleID, searchPath: environment["PATH"])
        let container = try prepareContainer(for: spec.bundleID)
        environment["COURIER_BUNDLE_ID"] = spec.bundleID
        environment["COURIER_CONTAINER"] = container

        let output = openOutput(for: spec.bundleID, arguments: spec.arguments)
        // The child has its own copy of a journal stream once spawned (or never will).
        defer { if case .descriptor(let descriptor) = output { close(descriptor) } }
        let child = try spawn(path: path, arguments: spec.arguments, environment: environment, output: output, bundleID: spec.bundleID)
        let pid = child.pid
        live.withLock { $0[pid] = spec.bundleID }
        let reaper = Thread { [self] in
            // Wait without reaping, forget the pid, then reap: see the type's notes on pid reuse.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            live.withLock { _ = $0.removeValue(forKey: pid) }
            let status = child.wait()
            onExit(pid, status)
        }
        reaper.stackSize = 256 * 1024
        reaper.name = "courier-reaper-\(pid)"
        reaper.start()
        return pid
    }

    public func terminate(pid: Int32, grace: Duration) {
        guard live.withLock({ $0[pid] != nil }) else { return }
        Glibc.kill(pid, SIGTERM)
        Task { [self] in
            try? await Task.sleep(for: grace)
            if live.withLock({ $0[pid] != nil }) { Glibc.kill(pid, SIGKILL) }
        }
    }

    public func kill(pid: Int32) {
        guard live.withLock({ $0[pid] != nil }) else { return }
        Glibc.kill(pid, SIGKILL)
    }

    public func isRunningChild(_ pid: Int32, of bundleID: String) -> Bool {
        live.withLock { $0[pid] == bundleID }
    }

    public func executablePath(for spec: LaunchSpec) throws(CourierError) -> String {
        let environment = baseEnvironment.merging(spec.environment) { _, new in new }
        return try executablePath(for: spec.arguments.first ?? "", bundleID: spec.bundleID, searchPath: environment["PATH"])
    }

    /// The children spawned and not yet reaped.
    public var liveChildren: Set<Int32> { live.withLock { Set($0.keys) } }

    /// Waits until every child has exited and been reaped, or `limit` has passed; returns the pids
    /// still running then. courierd calls it when the bus goes away: its apps lose the bus too (a
    /// Courier app then ends), and reaping them here leaves no zombie behind.
    public func waitForChildren(upTo limit: Duration) async -> Set<Int32> {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if live.withLock({ $0.isEmpty }) { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return liveChildren
    }

    /// Resolves argv[0]: a path containing `/` is used as it is; a bare name is looked up on `PATH`
    /// (`SearchPath`).
    private func executablePath(for name: String, bundleID: String, searchPath: String?) throws(CourierError) -> String {
        if name.contains("/") { return name }
        if let found = SearchPath.find(name, in: searchPath) { return found }
        throw CourierError(.launchFailed, "cannot launch \(bundleID): '\(name)' was not found on the broker's PATH (\(searchPath ?? "unset")); run `courier register MANIFEST` again from a shell whose PATH has it (the registered copy then records its absolute path), or write an absolute path in CourierLaunchArguments")
    }

    /// Where the app's output goes: a journal stream when journald runs (its socket exists), else
    /// its log file. When journald runs but does not take the stream, the output goes to the file,
    /// and the reason is on that launch's header line and on the broker's standard error (its own
    /// log): never silently elsewhere.
    private func openOutput(for bundleID: String, arguments: [String]) -> SpawnOutput {
        var note: String?
        if let journalSocket, JournalStream.isListening(at: journalSocket) {
            do {
                let descriptor = try JournalStream.open(identifier: bundleID, socketPath: journalSocket)
                let header = "--- courierd launches \(bundleID): \(arguments.joined(separator: " "))\n"
                _ = header.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
                return .descriptor(descriptor)
            } catch {
                note = "journald runs but did not take the output (\(error)), so it is written here"
                FileHandle.standardError.write(Data("courierd: \(bundleID): \(note!)\n".utf8))
            }
        }
        return openLog(for: bundleID, arguments: arguments, note: note)
    }

    /// The end of the app's log file (the launch header lines left out), read from at most its
    /// last 64 KiB; nothing when the app's output goes to the journal (the file then holds only
    /// what earlier launches wrote: `courier log` reads the journal).
    public func logTail(bundleID: String, lines count: Int) -> [String] {
        if let journalSocket, JournalStream.isListening(at: journalSocket) { return [] }
        guard count > 0, let app = try? BundleIdentifier(bundleID), let handle = FileHandle(forReadingAtPath: layout.log(for: app)) else { return [] }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 65536 ? size - 65536 : 0)
        let bytes = [UInt8]((try? handle.readToEnd()) ?? Data())
        // From the end, on bytes: this runs on the dispatcher's path when an app ends, so it must not
        // split 64 KiB into Characters (milliseconds) to keep a few lines.
        var lines: [String] = []
        var end = bytes.endIndex
        while lines.count < count, end > bytes.startIndex {
            let start = bytes[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.startIndex
            let line = bytes[start..<end]
            if !line.isEmpty, !line.starts(with: "--- ".utf8) {
                lines.append(String(decoding: line.prefix(512), as: UTF8.self))
            }
            end = start > bytes.startIndex ? start - 1 : bytes.startIndex
        }
        return lines.reversed()
    }

    /// Makes the app's log ready (folder 0700, file 0600, rotated when large) and writes the launch
    /// header (with `note` when given); the output to give the child. When the log cannot be
    /// written the child inherits the broker's output rather than not starting.
    private func openLog(for bundleID: String, arguments: [String], note: String?) -> SpawnOutput {
        guard let app = try? BundleIdentifier(bundleID) else { return .inherit }
        let file = layout.log(for: app)
        do {
            try FileManager.default.createDirectory(atPath: layout.logsFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return .inherit
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int, size > CourierLayout.logRotationSize {
            _ = rename(file, layout.previousLog(for: app))
        }
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return .inherit }
        let header = "--- \(Date().formatted(.iso8601)) courierd launches \(bundleID): \(arguments.joined(separator: " "))\(note.map { " (\($0))" } ?? "")\n"
        _ = header.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
        return .file(file, append: true)
    }

    private func spawn(path: String, arguments: [String], environment: [String: String], output: SpawnOutput, bundleID: String) throws(CourierError) -> ChildProcess {
        do {
            let standardError: SpawnOutput = output == .inherit ? .inherit : .standardOutput
            return try Spawner.start(path: path, arguments: arguments, environment: environment, standardOutput: output, standardError: standardError)
        } catch {
            throw CourierError(.launchFailed, "cannot launch \(bundleID): exec of \(path) failed: \(error); check CourierLaunchArguments in its manifest")
        }
    }
}
