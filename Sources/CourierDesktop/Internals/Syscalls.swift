import CourierNames
import CourierProcess
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every C call of CourierDesktop goes through this file, so the unsafe surface is one screen.
enum Syscalls {
    // MARK: Files

    /// The whole content of a regular file, or `nil` when it does not exist (`ENOENT`).
    static func readFile(_ path: String) throws(DesktopIntegrationError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .fileSystem(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces `path` atomically: a temporary file in the same folder, `fsync`, `rename(2)`.
    ///
    /// Readers see the old content or the new, never a mix. The existing file's permission bits
    /// are kept; a new file gets `mode`. When `path` is a symbolic link its target is replaced, so
    /// a dotfile manager's link keeps working. Missing parent folders are created with 0700 (XDG).
    static func writeFileAtomically(
        _ path: String, _ bytes: [UInt8], mode: mode_t = 0o644
    ) throws(DesktopIntegrationError) {
        let target = try resolvedTarget(path)
        let directory = Paths.directory(of: target)
        try makeDirectories(directory)
        var mode = mode
        var info = stat()
        if stat(target, &info) == 0 { mode = info.st_mode & 0o7777 }

        var template = Array(Paths.join(directory, ".\(Paths.lastComponent(of: target)).XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw .fileSystem(operation: "create a temporary file in", path: directory, errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var succeeded = false
        defer {
            close(fd)
            if !succeeded { unlink(temporary) }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(operation: "write", path: temporary, errno: errno)
            }
            offset += written
        }
        if fchmod(fd, mode) != 0 { throw .fileSystem(operation: "chmod", path: temporary, errno: errno) }
        if fsync(fd) != 0 { throw .fileSystem(operation: "fsync", path: temporary, errno: errno) }
        if rename(temporary, target) != 0 { throw .fileSystem(operation: "rename onto", path: target, errno: errno) }
        succeeded = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Removes a file; a file that is already gone is not an error. Returns whether it existed.
    @discardableResult
    static func removeFile(_ path: String) throws(DesktopIntegrationError) -> Bool {
        let target = try resolvedTarget(path)
        if unlink(target) == 0 { return true }
        if errno == ENOENT { return false }
        throw .fileSystem(operation: "remove", path: target, errno: errno)
    }

    /// `mkdir -p` with mode 0700 for the folders it creates, as the XDG specification asks.
    static func makeDirectories(_ path: String) throws(DesktopIntegrationError) {
        if isDirectory(path) { return }
        let parent = Paths.directory(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .fileSystem(operation: "create folder", path: path, errno: errno)
        }
    }

    /// Runs `body` holding an exclusive `flock(2)` on the folder `path` (created if missing), so
    /// that Courier processes (the broker, `courier register`) never interleave their edits. The
    /// lock is advisory and takes no file of its own.
    static func withDirectoryLock<T>(_ path: String, _ body: () throws(DesktopIntegrationError) -> T) throws(DesktopIntegrationError) -> T {
        try makeDirectories(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw .fileSystem(operation: "open folder", path: path, errno: errno) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw .fileSystem(operation: "lock folder", path: path, errno: errno)
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Names of the entries of a folder (without `.` and `..`); empty when it does not exist.
    static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The final target of `path` when it is a symbolic link, else `path` itself.
    private static func resolvedTarget(_ path: String) throws(DesktopIntegrationError) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            throw .fileSystem(operation: "resolve symbolic link", path: path, errno: errno)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
