#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `posix_spawn` failed: the program could not be started (the caller's error type says which
/// program and what to do).
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value `posix_spawn` returned (`ENOENT`, `EACCES`, `ENOEXEC`, …).
    public let errno: Int32

    public init(errno: Int32) { self.errno = errno }

    /// `strerror` text and number, e.g. "No such file or directory (errno 2)".
    public var description: String { "\(String(cString: strerror(errno))) (errno \(errno))" }
}
