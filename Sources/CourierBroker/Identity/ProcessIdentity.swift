#if canImport(Glibc)
import Glibc
#endif

/// What `/proc` says about a running process: the file it executes, by identity and (for people)
/// by path.
///
/// Read for a pid the bus vouches for (`GetConnectionCredentials`), at `CheckIn` and before each
/// delivery to an app that was not launched by the broker. Same-user processes can read each
/// other's `/proc/PID/exe`; a process that has exited has none, and then `executable` is nil.
public struct ProcessIdentity: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    /// The identity of `/proc/PID/exe`; nil when the process is gone or cannot be inspected.
    public var executable: FileIdentity?
    /// `readlink /proc/PID/exe` (it may end in " (deleted)"), or "?" when unreadable: for messages.
    public var executablePath: String

    public init(pid: Int32, executable: FileIdentity?, executablePath: String) {
        self.pid = pid
        self.executable = executable
        self.executablePath = executablePath
    }

    /// Reads `/proc/PID/exe` now.
    public static func of(pid: Int32) -> ProcessIdentity {
        let link = "/proc/\(pid)/exe"
        return ProcessIdentity(pid: pid, executable: FileIdentity(path: link), executablePath: readLink(link) ?? "?")
    }

    public var description: String { "pid \(pid) (\(executablePath)\(script.map { " \($0.path)" } ?? ""))" }

    /// For a process running an interpreter, the script it runs (`Interpreter.scriptOperand` of
    /// its command line, a relative path resolved against its working folder): set by the
    /// receiver check when the manifest launches a script, nil otherwise.
    public var script: RunningScript?

    /// The script a process says it runs, by identity and (for people) by path.
    public struct RunningScript: Sendable, Hashable {
        /// nil when the path names no file the broker can `stat`.
        public var file: FileIdentity?
        public var path: String
    }

    /// The script `pid` runs by its command line (`/proc/PID/cmdline`, relative to
    /// `/proc/PID/cwd`); nil when the command line names none or cannot be read.
    ///
    /// What this proves is limited: a process may rewrite its own command line (its `argv`
    /// memory), so the answer is what the process claims it runs, read from the kernel.
    public static func script(of pid: Int32) -> RunningScript? {
        guard let commandLine = readSmallFile("/proc/\(pid)/cmdline", limit: 64 << 10) else { return nil }
        let arguments = commandLine.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        guard let operand = Interpreter.scriptOperand(in: arguments.last == "" ? Array(arguments.dropLast()) : arguments) else { return nil }
        let resolved = operand.hasPrefix("/") ? operand : "/proc/\(pid)/cwd/" + operand
        let shown = operand.hasPrefix("/") ? operand : (readLink("/proc/\(pid)/cwd").map { $0 + "/" + operand } ?? operand)
        return RunningScript(file: FileIdentity(path: resolved), path: shown)
    }

    /// The parent of `pid` (`/proc/PID/stat`, the field after the command name); nil when the
    /// process is gone. Read while `pid` runs, the chain of parents is current.
    public static func parent(of pid: Int32) -> Int32? {
        guard let stat = readSmallFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// `pid`, then its parent, grandparent, … up to (not including) pid 1, at most `limit` of them.
    public static func lineage(of pid: Int32, limit: Int = 64) -> [Int32] {
        var chain: [Int32] = []
        var current: Int32? = pid
        while let next = current, next > 1, chain.count < limit {
            chain.append(next)
            current = parent(of: next)
        }
        return chain
    }

    /// A /proc file (its size reads as 0: read until end of file), at most `limit` bytes.
    static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let bytes = readAll(fd, limit: limit)
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// What `descriptor` reads until end of file, at most `limit` bytes (a /proc file's size
    /// reads as 0, so its size is never asked).
    static func readAll(_ descriptor: Int32, limit: Int) -> ArraySlice<UInt8> {
        var buffer = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < buffer.count {
            let got = buffer[count...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            count += got
        }
        return buffer[..<count]
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
