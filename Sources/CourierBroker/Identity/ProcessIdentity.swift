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

    public var description: String { "pid \(pid) (\(executablePath))" }

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

    /// A /proc file (its size reads as 0: read until end of file), at most 4 KiB.
    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < buffer.count {
            let got = buffer[count...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            count += got
        }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
