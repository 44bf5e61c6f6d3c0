#if canImport(Glibc)
import Glibc
#endif

/// A file as the kernel knows it: device and inode, never its name.
///
/// Two paths name the same executable exactly when their identities are equal, whatever the
/// symbolic links, hard links or `..` on the way; a copy of a binary in another folder, or another
/// binary with the same name, has another identity. `stat` follows links, so the identity of
/// `/proc/PID/exe` is that of the file the process runs (even if it was deleted meanwhile).
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64

    public var description: String { "dev \(device) inode \(inode)" }
}

extension FileIdentity {
    /// The identity of the file at `path` (links followed); nil when it cannot be `stat`ed.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
