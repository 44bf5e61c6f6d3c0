#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The systemd journal's stream protocol: what `systemd-cat` and a unit's
/// `StandardOutput=journal` use. A client connects a stream socket to journald's `stdout` socket,
/// writes a seven-line header (identifier, unit, priority, level prefix, and three forwarding
/// switches), and from then on every line written to it is one journal entry with
/// `SYSLOG_IDENTIFIER` set to the identifier, so `journalctl -t IDENTIFIER` reads them back. The
/// descriptor is then given to a child as its standard output and error.
public enum JournalStream {
    /// Where journald listens for streams when it runs (`systemd-journald-stdout.socket`).
    public static let defaultSocketPath = "/run/systemd/journal/stdout"

    /// Why a stream could not be opened; `errno` is the C error number.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let operation: String
        public let socketPath: String
        public let errno: Int32

        public var description: String {
            "\(operation) \(socketPath) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }

    /// Whether journald runs: a socket exists at `socketPath`.
    public static func isListening(at socketPath: String = defaultSocketPath) -> Bool {
        var status = stat()
        return stat(socketPath, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Connects to journald and sends the header for `identifier` (priority info, no level
    /// prefixes, nothing forwarded to syslog, kmsg or console). Returns a close-on-exec descriptor
    /// the caller owns. `identifier` must be one line (a bundle id is).
    public static func open(identifier: String, socketPath: String = defaultSocketPath) throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(operation: "socket for", socketPath: socketPath, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw Failure(operation: "connect to", socketPath: socketPath, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "connect to", socketPath: socketPath, errno: code)
        }
        // Nothing read back: journald only reads this socket, so shut our reading side.
        _ = shutdown(fd, Int32(SHUT_RD))
        let header = Array("\(identifier)\n\n6\n0\n0\n0\n0\n".utf8)
        var written = 0
        while written < header.count {
            let count = header[written...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw Failure(operation: "write the stream header to", socketPath: socketPath, errno: code)
            }
            written += count
        }
        return fd
    }
}
