import CourierInbox
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `StreamingWriter`: every byte lands where it belongs whatever the sizes of the pieces and of
/// the whole (the direct buffer's boundaries and the 4 KiB alignment are the edges), and the
/// descriptor reads as any file afterwards.
@Suite struct StreamingWriterTests {
    static let chunk = StreamingWriter.chunkSize
    static let sizes = [0, 1, 4095, 4096, 4097, chunk - 1, chunk, chunk + 1, 2 * chunk + 4096 + 3]

    /// Writes `size` bytes in pieces of `piece` bytes into a scratch file and
    /// returns what the file holds, with whether the writer stayed direct.
    private func roundTrip(size: Int, piece: Int, direct: Bool) throws -> (matches: Bool, direct: Bool, unalignedRead: Bool) {
        let scratch = Scratch()
        let path = scratch.path + "/stream.bin"
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        // Page-aligned, as the receiver's body buffers: pieces of a multiple of 4 KiB go to the
        // disk from here, the others through the writer's buffer (and so every later piece).
        let aligned = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 4096)
        defer { aligned.deallocate() }
        let source = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        source.withUnsafeBytes { aligned.copyMemory(from: $0) }
        let writer = StreamingWriter(descriptor: fd, direct: direct)
        var offset = 0
        while offset < size {
            let end = min(size, offset + piece)
            try writer.write(UnsafeRawBufferPointer(rebasing: aligned[offset..<end]))
            offset = end
        }
        #expect(writer.count == Int64(size))
        let stayedDirect = writer.isDirect
        try writer.finish()
        // An unaligned read of 3 bytes at offset 1 through the same descriptor: refused (EINVAL)
        // while O_DIRECT is on.
        var three = [UInt8](repeating: 0, count: 3)
        let read = three.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 3, 1) }
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        return (Array(stored) == source, stayedDirect, read == min(3, max(0, size - 1)))
    }

    @Test(arguments: sizes)
    func everyByteLandsInOrderWhateverTheSizeDirect(size: Int) throws {
        for piece in [1 << 20, 1_000_003, 8192 + 5] + (size <= 16384 ? [4096] : []) {
            let outcome = try roundTrip(size: size, piece: piece, direct: true)
            #expect(outcome.matches, "size \(size) in pieces of \(piece)")
            #expect(outcome.unalignedRead, "the descriptor still refuses an unaligned read after finish()")
        }
    }

    @Test(arguments: [0, 4097, chunk + 1])
    func bufferedWritesLandAlike(size: Int) throws {
        let outcome = try roundTrip(size: size, piece: 1_000_003, direct: false)
        #expect(outcome.matches)
        #expect(!outcome.direct)
        #expect(outcome.unalignedRead)
    }

    /// Where the test's folder takes O_DIRECT (ext4, xfs, btrfs; tmpfs from Linux 6.6), the writer
    /// uses it and keeps it to the end: a fallback would cost the page-cache copy it exists to avoid.
    @Test func theWriterStaysDirectWhereTheFileSystemTakesIt() throws {
        let probe = Scratch()
        let fd = open(probe.path + "/probe", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        let takesDirect = StreamingWriter(descriptor: fd).isDirect
        let outcome = try roundTrip(size: 3 * Self.chunk + 5, piece: 1 << 20, direct: true)
        #expect(outcome.matches)
        #expect(outcome.direct == takesDirect)
    }
}
