import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The read end of the pipe a child writes to (`SpawnOutput.pipe`), close-on-exec.
///
/// A reference that closes its descriptor exactly once — on `close()` or when the last reference
/// goes — however many copies of the `ChildProcess` hold it: closing a descriptor number twice can
/// close a socket another thread has opened under that number in between.
public final class PipeReadEnd: Sendable {
    /// The descriptor, -1 once closed. Held while reading, so `close()` waits for a read in progress.
    private let descriptor: Mutex<Int32>

    init(_ descriptor: Int32) { self.descriptor = Mutex(descriptor) }

    deinit { close() }

    /// Reads until `marker` appears and returns everything read so far (the marker included);
    /// `nil` when the writer closed its end first, or this end is closed.
    public func read(until marker: String) -> String? {
        descriptor.withLock { fd -> String? in
            guard fd >= 0 else { return nil }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let text = String(decoding: bytes, as: UTF8.self)
                if text.contains(marker) { return text }
                let n = systemRead(fd, &buffer)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return nil }
                bytes += buffer[0..<n]
            }
        }
    }

    /// Closes the descriptor (the child gets `SIGPIPE` if it writes on); later calls do nothing.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { systemClose(fd) }
            fd = -1
        }
    }
}

/// `read(2)` and `close(2)`, under names the methods above do not shadow.
private func systemRead(_ fd: Int32, _ buffer: inout [UInt8]) -> Int {
    read(fd, &buffer, buffer.count)
}

private func systemClose(_ fd: Int32) {
    _ = close(fd)
}
