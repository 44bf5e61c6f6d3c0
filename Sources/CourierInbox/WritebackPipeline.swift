#if canImport(Glibc)
import Glibc
#endif

/// Writes a file back to the disk while it is being written: after each chunk is written its
/// write-back is started (`sync_file_range(WRITE)`) and the chunk before it is waited for
/// (`sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`). The disk works on chunk N while chunk
/// N+1 is written, dirty pages never pile up (at most two chunks), and the `fsync` that must
/// still follow (`sync_file_range` writes no metadata and flushes no disk cache) has only the last
/// chunk and the metadata left. `FileCopier` uses it for a drop's copy, the nearby receiver for an
/// upload streamed into the Inbox. Advisory: a failing `sync_file_range` only costs time (the
/// caller's `fsync` reports real errors).
public struct WritebackPipeline: Sendable {
    public let descriptor: Int32
    public let enabled: Bool
    /// The chunk whose write-back was started last and not yet waited for.
    private var pending: (offset: Int64, length: Int64)?

    public init(descriptor: Int32, enabled: Bool = true) {
        self.descriptor = descriptor
        self.enabled = enabled
    }

    /// Reserves the blocks of `[0, length)` of `descriptor` before it is written (`fallocate`, mode
    /// 0: the size becomes `length`): one extent instead of one allocation per write-back, and a
    /// full disk before any byte is written. Returns the `errno` of a refusal (`ENOSPC`, or
    /// `EOPNOTSUPP` where the file system cannot, which costs nothing), nil when done.
    public static func reserve(_ descriptor: Int32, length: Int64) -> Int32? {
        do {
            try Sys.allocate(descriptor, offset: 0, length: length)
            return nil
        } catch {
            return error.rawValue
        }
    }

    /// `[start, end)` has just been written: starts its write-back, and waits for the chunk before.
    public mutating func written(from start: Int64, to end: Int64) {
        guard enabled, end > start else { return }
        try? Sys.startWriteback(descriptor, offset: start, length: end - start)
        if let pending {
            try? Sys.waitForWriteback(descriptor, offset: pending.offset, length: pending.length)
        }
        pending = (start, end - start)
    }
}
