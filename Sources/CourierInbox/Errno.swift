#if canImport(Glibc)
import Glibc
#endif

/// A POSIX error number, as a value: what a failed system call left in `errno`.
///
/// An open struct rather than an enum (the swift-system habit): the kernel may return values this
/// code never names, and they must still travel intact to the error a person reads.
struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(errno) }

    static let interrupted = Errno(EINTR)
    static let exists = Errno(EEXIST)
    static let noEntry = Errno(ENOENT)
    static let badDescriptor = Errno(EBADF)
    static let invalid = Errno(EINVAL)
    static let notDirectory = Errno(ENOTDIR)
    static let symbolicLinkLoop = Errno(ELOOP)
    static let noSystemCall = Errno(ENOSYS)
    static let notSupported = Errno(EOPNOTSUPP)
    static let crossDevice = Errno(EXDEV)
    static let noDeviceOrAddress = Errno(ENXIO)
    static let wouldBlock = Errno(EWOULDBLOCK)
    static let isDirectory = Errno(EISDIR)
    static let notTypewriter = Errno(ENOTTY)
    static let notPermitted = Errno(EPERM)
    static let noSpace = Errno(ENOSPC)
    static let quotaExceeded = Errno(EDQUOT)

    /// `strerror` text, e.g. "No such file or directory".
    var description: String { String(cString: strerror(rawValue)) }
}
