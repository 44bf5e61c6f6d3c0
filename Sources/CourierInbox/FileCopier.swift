#if canImport(Glibc)
import Glibc
#endif

/// Copies the bytes of a regular file into another, by the kernel's fastest path.
///
/// `copy_file_range(2)` does the work: the data never enters this process, and on file systems
/// that share extents (Btrfs, XFS) the kernel makes a reflink, which is still a copy — a later
/// write by the sender does not reach it. Holes of a sparse file are skipped (`SEEK_DATA` /
/// `SEEK_HOLE`) and recreated with `ftruncate`, so a 2 GiB sparse file costs what its data costs.
/// Where `copy_file_range` is refused (`EXDEV`, `ENOSYS`, `EOPNOTSUPP`, `EINVAL`), it falls back to
/// `pread`/`pwrite` with a 1 MiB buffer. Explicit offsets are used throughout: the source's file
/// offset, which the sender shares, is left as it was.
struct FileCopier {
    /// Bytes per `copy_file_range` call: small enough for a smooth progress bar, large enough
    /// that the call overhead is noise.
    var chunkBytes = 32 << 20
    /// Bytes per `pread`/`pwrite` in the fallback.
    var bufferBytes = 1 << 20
    /// Start writeback of each chunk as soon as it is copied (the caller will `fsync`).
    var startsWriteback = true

    /// Why a copy stopped.
    enum Failure: Error {
        /// A system call failed.
        case system(Errno, operation: String)
        /// The source ended at `offset`, before its size when the copy began.
        case sourceShrank(offset: Int64)
    }

    /// Copies `size` bytes of `source` to `destination` (an empty file), then sets the
    /// destination's size to `size`. `progress` gets the bytes done so far (holes included).
    func copy(from source: Int32, size: Int64, to destination: Int32,
              progress: (Int64) -> Void) throws(Failure) {
        let savedOffset = try? Sys.seek(source, to: 0, whence: SEEK_CUR)
        defer { if let savedOffset { _ = try? Sys.seek(source, to: savedOffset, whence: SEEK_SET) } }

        Sys.adviseSequential(source)
        var useKernelCopy = true
        var position: Int64 = 0
        while position < size {
            // The next data region [dataStart, dataEnd); file systems without hole support report
            // the whole file as data.
            let dataStart: Int64
            do {
                dataStart = try Sys.nextData(source, from: position)
            } catch let error where error == .noDeviceOrAddress {
                break  // only a hole is left
            } catch let error where error == .invalid || error == .notSupported {
                dataStart = position
            } catch {
                throw .system(error, operation: "lseek(SEEK_DATA)")
            }
            if dataStart >= size { break }
            let dataEnd = min(size, (try? Sys.nextHole(source, from: dataStart)) ?? size)
            progress(dataStart)

            var inputOffset = dataStart
            var outputOffset = dataStart
            while inputOffset < dataEnd {
                let wanted = Int(min(Int64(chunkBytes), dataEnd - inputOffset))
                if useKernelCopy {
                    let copied: Int64
                    do {
                        copied = try Sys.copyFileRange(from: source, at: &inputOffset, to: destination,
                                                       at: &outputOffset, length: wanted)
                    } catch let error where [.crossDevice, .noSystemCall, .notSupported, .invalid].contains(error) {
                        useKernelCopy = false
                        continue
                    } catch {
                        throw .system(error, operation: "copy_file_range")
                    }
                    if copied == 0 { throw .sourceShrank(offset: inputOffset) }
                } else {
                    try copyThroughBuffer(from: source, at: &inputOffset, to: destination, at: &outputOffset, length: wanted)
                }
                if startsWriteback {
                    // Overlap the disk writes with the copy: the fsync that follows then waits for
                    // little. Advisory: a failure here only costs time.
                    try? Sys.startWriteback(destination, offset: outputOffset - Int64(wanted), length: Int64(wanted))
                }
                progress(inputOffset)
            }
            position = dataEnd
        }
        do {
            try Sys.truncate(destination, to: size)
        } catch {
            throw .system(error, operation: "ftruncate")
        }
        progress(size)
    }

    /// The fallback: `pread` then `pwrite`, `length` bytes.
    private func copyThroughBuffer(from source: Int32, at inputOffset: inout Int64, to destination: Int32,
                                   at outputOffset: inout Int64, length: Int) throws(Failure) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(bufferBytes, length), alignment: 4096)
        defer { buffer.deallocate() }
        var remaining = length
        while remaining > 0 {
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, remaining)])
            let count: Int
            do {
                count = try Sys.read(source, into: slice, at: inputOffset)
            } catch {
                throw .system(error, operation: "pread")
            }
            if count == 0 { throw .sourceShrank(offset: inputOffset) }
            do {
                try Sys.writeAll(destination, UnsafeRawBufferPointer(rebasing: slice[..<count]), at: outputOffset)
            } catch {
                throw .system(error, operation: "pwrite")
            }
            inputOffset += Int64(count)
            outputOffset += Int64(count)
            remaining -= count
        }
    }
}
