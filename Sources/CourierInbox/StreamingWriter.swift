#if canImport(Glibc)
import Glibc
#endif

/// Writes a stream of bytes into a file from its start, for a file that must be durable once it
/// is complete (an upload the sender hears success for only when it is on the disk), at as little
/// CPU cost as the file system allows:
///
/// - **Direct** where the file system takes `O_DIRECT`: a piece at a 4 KiB-aligned address and of
///   a multiple of 4 KiB goes from the caller's memory to the disk; other pieces are gathered in
///   one aligned buffer of ``chunkSize``, written when full. No copy into the page cache, no
///   page-cache page to allocate for every 4 KiB, no write-back of those pages later. In a virtual
///   machine whose free memory the host reclaims, allocating fresh page-cache pages is what a
///   buffered write mostly costs: writing 1 GiB took 1.0–5.5 s of CPU buffered against 0.11 s
///   direct on the machine `courier-bench nearby` runs on (docs/PERFORMANCE.md).
/// - **Buffered** elsewhere (tmpfs before Linux 6.6, FUSE, a file system that refuses an aligned
///   write): each write goes to the page cache at once, and its write-back is started as the file
///   grows (``WritebackPipeline``), so the final `fsync` has little left.
///
/// Either way the caller's `fsync` makes the file durable: a direct write does not flush the
/// disk's cache nor write metadata. ``finish()`` writes what is still buffered and leaves the open
/// file description without `O_DIRECT` — as it was opened, since the flag is shared with every
/// descriptor of it: whoever gets the descriptor next (the broker, checking and linking the file)
/// reads it as any file.
public final class StreamingWriter {
    /// The size of the one buffer this writer holds (allocated only when a piece cannot go to
    /// the disk from where it is), and so of each direct write from it.
    public static let chunkSize = 1 << 20
    /// Memory address, file offset and length of a direct write are multiples of this. Linux
    /// asks for multiples of the device's logical block size, 512 or 4096 bytes on the disks it
    /// runs on: 4096 is a multiple of both.
    public static let alignment = 4096
    /// Buffered: write-back is started per this many bytes (``WritebackPipeline``).
    private static let writebackChunk: Int64 = 32 << 20

    public let descriptor: Int32
    /// Whether the bytes go to the disk directly (`O_DIRECT`), so far.
    public private(set) var isDirect: Bool
    /// The bytes handed over so far (`written` of them are in the file).
    public private(set) var count: Int64 = 0
    private var written: Int64 = 0
    /// Direct: the aligned buffer, once a piece needed it; `count - written` bytes of it are filled.
    private var buffer: UnsafeMutableRawBufferPointer?
    private var writeback: WritebackPipeline
    private var writebackStart: Int64 = 0

    /// A writer for `descriptor`, an empty file open for writing (not owned: the caller closes it).
    /// `direct: false` writes through the page cache whatever the file system.
    public init(descriptor: Int32, direct: Bool = true) {
        self.descriptor = descriptor
        writeback = WritebackPipeline(descriptor: descriptor)
        isDirect = direct && (try? Sys.setDirectIO(descriptor, true)) != nil
    }

    deinit {
        buffer?.deallocate()
    }

    /// Appends `bytes`. Direct, a piece at an aligned address and of an aligned length, with
    /// nothing buffered before it, goes from the caller's memory to the disk (the nearby
    /// receiver's 1 MiB body buffers are allocated so, ``alignedStart(of:)``); any other piece is
    /// copied into the buffer, written when full. Buffered, it is written at once.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        if count == written, !isDirect || Self.isAligned(bytes) {
            count += Int64(bytes.count)
            return try writeOut(bytes)
        }
        let buffer = self.buffer ?? .allocate(byteCount: Self.chunkSize, alignment: Self.alignment)
        self.buffer = buffer
        var rest = bytes
        while !rest.isEmpty {
            let filled = Int(count - written)
            let taken = min(rest.count, Self.chunkSize - filled)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + taken)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<taken]))
            count += Int64(taken)
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            if filled + taken == Self.chunkSize { try flush(upTo: Self.chunkSize) }
        }
    }

    /// Writes what is still buffered, and leaves the file description without `O_DIRECT`. The
    /// file then holds every byte handed over; call once, after the last ``write(_:)``.
    public func finish() throws(Failure) {
        try flush(upTo: Int(count - written) & ~(Self.alignment - 1))
        try leaveDirect()
        try flush(upTo: Int(count - written))
        buffer?.deallocate()
        buffer = nil
    }

    /// How many bytes from `address` to the next multiple of ``alignment``: where a buffer whose
    /// bytes are to go to the disk directly starts its contents.
    public static func alignedStart(of address: UnsafeRawPointer) -> Int {
        (alignment - Int(bitPattern: address) % alignment) % alignment
    }

    private static func isAligned(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let address = bytes.baseAddress else { return false }
        return alignedStart(of: address) == 0 && bytes.count % alignment == 0
    }

    /// Writes the first `length` bytes of the buffer (directly: a multiple of ``alignment``) and
    /// moves what follows them to its start.
    private func flush(upTo length: Int) throws(Failure) {
        guard length > 0, let buffer else { return }
        try writeOut(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        let filled = Int(count - written)
        if filled > 0 {
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<filled]).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[length..<(length + filled)]))
        }
    }

    /// Writes `bytes` at `written`: directly while the writer is direct, else through the page
    /// cache with its write-back started per ``writebackChunk``. A file system that refuses a
    /// direct write (`EINVAL`: an alignment it does not take) gets it, and the rest of the
    /// stream, buffered.
    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        if isDirect {
            do {
                try Sys.writeAll(descriptor, bytes, at: written)
                written += Int64(bytes.count)
                return
            } catch where error == .invalid {
                try leaveDirect()
            } catch {
                throw Failure(error)
            }
        }
        do { try Sys.writeAll(descriptor, bytes, at: written) } catch { throw Failure(error) }
        written += Int64(bytes.count)
        if written - writebackStart >= Self.writebackChunk {
            writeback.written(from: writebackStart, to: written)
            writebackStart = written
        }
    }

    /// Clears `O_DIRECT`; from here on every byte is written buffered.
    private func leaveDirect() throws(Failure) {
        guard isDirect else { return }
        do { try Sys.setDirectIO(descriptor, false) } catch { throw Failure(error) }
        isDirect = false
    }

    /// A write that failed: its `errno` and what it means.
    public struct Failure: Error, Sendable {
        public let code: Int32
        init(_ error: Errno) { code = error.rawValue }
        /// "the disk is full" for `ENOSPC`, else the `strerror` text.
        public var reason: String { code == ENOSPC ? "the disk is full" : String(cString: strerror(code)) }
    }
}
