#if canImport(Glibc)
import Glibc
#endif

/// Copies the bytes of a regular file into another, by the kernel's fastest path, and (when asked)
/// writes the copy back to the disk while it is made, so that the `fsync` that follows has almost
/// nothing left to wait for.
///
/// In order of preference:
/// 1. `ioctl(FICLONE)`: on file systems that share extents (Btrfs, XFS, bcachefs) the whole file
///    is a reflink in one call — still a copy: a later write by the sender does not reach it. Where
///    the file system cannot (ext4 answers `EOPNOTSUPP` at once), the attempt costs one system call.
/// 2. `copy_file_range(2)` in chunks of `chunkBytes`: the data never enters this process. Holes of a
///    sparse file are skipped (`SEEK_DATA` / `SEEK_HOLE`) and recreated with `ftruncate`, so a
///    2 GiB sparse file costs what its data costs. A file without holes gets its blocks reserved
///    first (`fallocate`): one allocation instead of one per write-back, and `ENOSPC` before any copy.
/// 3. `pread`/`pwrite` with a 1 MiB buffer, where `copy_file_range` is refused (`EXDEV`,
///    `ENOSYS`, `EOPNOTSUPP`, `EINVAL`).
///
/// Write-back pipelining (`writesBack`): after each chunk is copied, its write-back is started
/// (`sync_file_range(WRITE)`), and the chunk before it is waited for
/// (`sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`). The disk works on chunk N while chunk N+1
/// is copied, dirty pages never pile up (at most two chunks), and the caller's `fsync` only
/// flushes the last chunk and the metadata. `sync_file_range` alone is not durable (no metadata,
/// no disk cache flush): the caller must still `fsync`.
///
/// Explicit offsets are used throughout: the source's file offset, which the sender shares, is left
/// as it was.
struct FileCopier {
    /// Bytes per `copy_file_range` call and per write-back step. Measured with `courier-bench drop`
    /// on ext4/virtio (docs/inbox.md): 32 MiB came out best of 8, 16, 32 and 128; smaller chunks mean more calls, larger
    /// ones a longer wait for the last chunk at the end.
    var chunkBytes = 32 << 20
    /// Bytes per `pread`/`pwrite` in the fallback.
    var bufferBytes = 1 << 20
    /// Write the copy back while it is made (the caller will `fsync`). Off for volatile storage
    /// and for measuring the copy alone.
    var writesBack = true
    /// Try `FICLONE` first.
    var clones = true
    /// Reserve the blocks of a file without holes before copying (`fallocate`).
    var preallocates = true

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
        if clones, size > 0, try clone(from: source, size: size, to: destination) {
            progress(size)
            return
        }
        let savedOffset = try? Sys.seek(source, to: 0, whence: SEEK_CUR)
        defer { if let savedOffset { _ = try? Sys.seek(source, to: savedOffset, whence: SEEK_SET) } }

        Sys.adviseSequential(source)
        if preallocates, size > 0, let status = try? Sys.fileStatus(source), Int64(status.st_blocks) * 512 >= size {
            do {
                try Sys.allocate(destination, offset: 0, length: size)
            } catch let error where error == .noSpace {
                throw .system(error, operation: "fallocate")
            } catch {
                // Not supported here (EOPNOTSUPP) or refused: the copy allocates as it goes.
            }
        }
        var writeback = WritebackPipeline(descriptor: destination, enabled: writesBack)
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
                let chunkStart = outputOffset
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
                writeback.written(from: chunkStart, to: outputOffset)
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

    /// `FICLONE` of the whole source; `false` where the file system cannot (nothing was changed).
    private func clone(from source: Int32, size: Int64, to destination: Int32) throws(Failure) -> Bool {
        do {
            try Sys.cloneFile(destination, from: source)
        } catch {
            // EOPNOTSUPP (ext4, tmpfs), EXDEV (another file system), EINVAL (unaligned size on some
            // file systems), ENOTTY, EPERM: copy instead.
            return false
        }
        // The clone is the source as it is now: it must hold at least the `size` bytes inspected.
        let cloned: Int64
        do {
            cloned = Int64(try Sys.fileStatus(destination).st_size)
        } catch {
            throw .system(error, operation: "fstat")
        }
        if cloned < size { throw .sourceShrank(offset: cloned) }
        do {
            try Sys.truncate(destination, to: size)
        } catch {
            throw .system(error, operation: "ftruncate")
        }
        return true
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
