import Glibc

/// Reads small regular files without ever blocking on something that is not one.
///
/// The file is opened with `O_NONBLOCK | O_NOCTTY` (opening a FIFO or a terminal returns at once
/// instead of waiting for a writer), checked with `fstat` on the descriptor (no race between
/// checking and reading), and refused unless it is a regular file no larger than the limit.
package enum SafeFileReader {
    package enum Failure: Error, Equatable {
        /// `open` or `read` failed; the errno and its text.
        case unreadable(errno: Int32, reason: String)
        /// Not a regular file; what it is ("a FIFO", "a character device", …).
        case notRegularFile(kind: String)
        /// Larger than the limit; the size found.
        case tooLarge(size: Int)
    }

    /// `followingSymlinks` false: a symbolic link as the last component is `unreadable` (`ELOOP`).
    package static func read(path: String, limit: Int, followingSymlinks: Bool = true) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (followingSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return .failure(.unreadable(errno: errno, reason: errorText(errno))) }
        defer { close(fd) }
        return read(descriptor: fd, limit: limit)
    }

    /// Reads a regular file from an open descriptor, from its start with `pread` (the file offset,
    /// which the descriptor's owner may share, is left as it was).
    package static func read(descriptor fd: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.unreadable(errno: errno, reason: errorText(errno))) }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else { return .failure(.notRegularFile(kind: describe(kind))) }
        guard st.st_size <= limit else { return .failure(.tooLarge(size: Int(st.st_size))) }
        var buffer = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while true {
            if count == buffer.count {
                guard buffer.count <= limit else { return .failure(.tooLarge(size: count)) }
                buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, limit + 1 - buffer.count)))
            }
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + count, raw.count - count, off_t(count))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(errno: errno, reason: errorText(errno)))
            }
            if n == 0 { break }
            count += n
        }
        if count > limit { return .failure(.tooLarge(size: count)) }
        buffer.removeSubrange(count...)
        return .success(buffer)
    }

    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "not a regular file"
        }
    }

    package static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
