#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, again after a signal interrupted `write(2)` and after a short
/// write; false with `errno` set when a write fails (a write of nothing is `EIO`). The one write
/// loop of the app library's files (the Inbox copy that `AppInbox` moves out, the state archive).
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var done = 0
    while done < bytes.count {
        let written = write(fd, bytes.baseAddress! + done, bytes.count - done)
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        if written == 0 {
            errno = EIO
            return false
        }
        done += written
    }
    return true
}

/// Writes `line` to standard error (fd 2) at once, unbuffered: the library's one-line reports.
func writeStandardError(_ line: String) {
    var line = line
    _ = line.withUTF8 { writeAll(2, UnsafeRawBufferPointer($0)) }
}
