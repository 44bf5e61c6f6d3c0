internal import CInbox
#if canImport(Glibc)
import Glibc
#endif

/// Every system call CourierInbox makes, in one place (the swift-system habit): the unsafe surface
/// is this file. Each wrapper retries on `EINTR` and turns a failure into a thrown `Errno`.
enum Sys {
    /// Runs `call` until it is not interrupted by a signal; a result of -1 throws `errno`.
    @inline(__always)
    private static func retrying<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

    // MARK: Constants the Glibc module does not import (see CInbox.h)

    /// `O_PATH`.
    static var pathOnlyFlag: Int32 { cinbox_O_PATH }
    /// `O_TMPFILE` (includes `O_DIRECTORY`).
    static var temporaryFileFlag: Int32 { cinbox_O_TMPFILE }

    // MARK: Opening and closing

    /// `openat(2)`; the result is owned by the caller.
    static func openAt(_ directory: Int32, _ path: String, flags: Int32, mode: mode_t = 0) throws(Errno) -> OwnedDescriptor {
        let fd = try retrying { cinbox_openat(directory, path, flags | O_CLOEXEC, UInt32(mode)) }
        return OwnedDescriptor(adopting: fd)
    }

    /// `open(2)` of an absolute or relative path (relative to the working directory).
    static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(Errno) -> OwnedDescriptor {
        try openAt(AT_FDCWD, path, flags: flags, mode: mode)
    }

    /// An unnamed file in `directory` (`O_TMPFILE`), readable and writable.
    static func openUnnamedFile(in directory: Int32, mode: mode_t) throws(Errno) -> OwnedDescriptor {
        let fd = try retrying { cinbox_open_tmpfile(directory, UInt32(mode)) }
        return OwnedDescriptor(adopting: fd)
    }

    /// `fcntl(F_DUPFD_CLOEXEC)`: a new descriptor for the same open file, owned by the caller.
    static func duplicateOwned(_ fd: Int32) throws(Errno) -> OwnedDescriptor {
        OwnedDescriptor(adopting: try retrying { fcntl(fd, F_DUPFD_CLOEXEC, 0) })
    }

    // MARK: Inspecting

    /// `fcntl(F_GETFL)`: the access mode and status flags of an open file description.
    static func statusFlags(_ fd: Int32) throws(Errno) -> Int32 {
        try retrying { cinbox_get_status_flags(fd) }
    }

    /// `fstat(2)`.
    static func fileStatus(_ fd: Int32) throws(Errno) -> stat {
        var status = stat()
        _ = try retrying { fstat(fd, &status) }
        return status
    }

    /// `fstatat(2)` without following a final symbolic link.
    static func linkStatus(_ directory: Int32, _ name: String) throws(Errno) -> stat {
        var status = stat()
        _ = try retrying { fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// `fstatvfs(2)`: free space and inodes of the file system holding `fd`.
    static func fileSystemStatus(_ fd: Int32) throws(Errno) -> statvfs {
        var status = statvfs()
        _ = try retrying { fstatvfs(fd, &status) }
        return status
    }

    /// `fstatfs(2)`'s `f_type`: the magic number of the file system holding `fd` (`PROC_SUPER_MAGIC`, …).
    static func fileSystemType(_ fd: Int32) throws(Errno) -> Int {
        var type: Int64 = 0
        _ = try retrying { cinbox_file_system_type(fd, &type) }
        return Int(type)
    }

    // MARK: Reading and writing

    /// `pread(2)`: reads at `offset` without moving the file offset. Returns the count read.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        try retrying { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `pwrite(2)` until every byte is written.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) {
        var done = 0
        while done < buffer.count {
            let remaining = UnsafeRawBufferPointer(rebasing: buffer[done...])
            let written = try retrying { pwrite(fd, remaining.baseAddress, remaining.count, off_t(offset) + off_t(done)) }
            done += written
        }
    }

    /// `copy_file_range(2)` with explicit offsets, which it advances. Returns the count copied
    /// (0 at the end of the source).
    static func copyFileRange(from source: Int32, at sourceOffset: inout Int64,
                              to destination: Int32, at destinationOffset: inout Int64,
                              length: Int) throws(Errno) -> Int64 {
        var input = sourceOffset, output = destinationOffset
        let copied = try retrying { cinbox_copy_file_range(source, &input, destination, &output, length) }
        sourceOffset = input
        destinationOffset = output
        return copied
    }

    /// `lseek(2)`.
    @discardableResult
    static func seek(_ fd: Int32, to offset: Int64, whence: Int32) throws(Errno) -> Int64 {
        Int64(try retrying { lseek(fd, off_t(offset), whence) })
    }

    /// `lseek(SEEK_DATA)`: the start of the next data region at or after `offset`.
    static func nextData(_ fd: Int32, from offset: Int64) throws(Errno) -> Int64 {
        try seek(fd, to: offset, whence: cinbox_SEEK_DATA)
    }

    /// `lseek(SEEK_HOLE)`: the start of the next hole at or after `offset` (the end of the file
    /// counts as a hole).
    static func nextHole(_ fd: Int32, from offset: Int64) throws(Errno) -> Int64 {
        try seek(fd, to: offset, whence: cinbox_SEEK_HOLE)
    }

    /// `posix_fadvise(POSIX_FADV_SEQUENTIAL)` over the whole file: larger read-ahead for a source
    /// that is not cached yet. Advisory only.
    static func adviseSequential(_ fd: Int32) {
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    /// `ftruncate(2)`.
    static func truncate(_ fd: Int32, to size: Int64) throws(Errno) {
        _ = try retrying { ftruncate(fd, off_t(size)) }
    }

    /// `fchmod(2)`.
    static func changeMode(_ fd: Int32, to mode: mode_t) throws(Errno) {
        _ = try retrying { fchmod(fd, mode) }
    }

    /// `fsync(2)`.
    static func synchronize(_ fd: Int32) throws(Errno) {
        _ = try retrying { fsync(fd) }
    }

    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`: starts writeback of a range, does not wait.
    static func startWriteback(_ fd: Int32, offset: Int64, length: Int64) throws(Errno) {
        _ = try retrying { cinbox_start_writeback(fd, offset, length) }
    }

    /// `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`: writes a range back and waits for it.
    static func waitForWriteback(_ fd: Int32, offset: Int64, length: Int64) throws(Errno) {
        _ = try retrying { cinbox_wait_writeback(fd, offset, length) }
    }

    /// `ioctl(FICLONE)`: `destination` becomes a copy-on-write clone of the whole of `source`.
    static func cloneFile(_ destination: Int32, from source: Int32) throws(Errno) {
        _ = try retrying { cinbox_clone_file(destination, source) }
    }

    /// `fcntl(F_SETFL)` setting or clearing `O_DIRECT` on the open file description (shared by
    /// every descriptor of it, including one passed to another process).
    static func setDirectIO(_ fd: Int32, _ on: Bool) throws(Errno) {
        _ = try retrying { cinbox_set_direct_io(fd, on ? 1 : 0) }
    }

    /// `fallocate(2)`, mode 0: reserves the blocks of `[offset, offset + length)`.
    static func allocate(_ fd: Int32, offset: Int64, length: Int64) throws(Errno) {
        _ = try retrying { cinbox_allocate(fd, offset, length) }
    }

    /// `flock(2)`.
    static func lock(_ fd: Int32, _ operation: Int32) throws(Errno) {
        _ = try retrying { flock(fd, operation) }
    }

    // MARK: Names in directories

    /// `mkdirat(2)`.
    static func makeDirectory(_ directory: Int32, _ name: String, mode: mode_t) throws(Errno) {
        _ = try retrying { mkdirat(directory, name, mode) }
    }

    /// `linkat(2)`.
    static func link(_ oldDirectory: Int32, _ oldPath: String, _ newDirectory: Int32, _ newName: String, flags: Int32) throws(Errno) {
        _ = try retrying { linkat(oldDirectory, oldPath, newDirectory, newName, flags) }
    }

    /// `renameat2(RENAME_NOREPLACE)`: fails with `EEXIST` rather than replace `newName`.
    static func renameWithoutReplacing(_ directory: Int32, _ oldName: String, to newName: String) throws(Errno) {
        _ = try retrying { cinbox_renameat_noreplace(directory, oldName, directory, newName) }
    }

    /// `unlinkat(2)` of a file (not a directory).
    static func unlink(_ directory: Int32, _ name: String) throws(Errno) {
        _ = try retrying { unlinkat(directory, name, 0) }
    }

    /// The names in the directory `fd` (without "." and ".."). The directory's own descriptor is
    /// left open and its offset untouched (a duplicate is read).
    static func directoryEntries(_ fd: Int32) throws(Errno) -> [String] {
        let duplicate = try retrying { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
        guard let stream = fdopendir(duplicate) else {
            let error = Errno.current
            _ = Glibc.close(duplicate)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
