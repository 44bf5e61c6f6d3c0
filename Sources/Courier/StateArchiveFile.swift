import CourierNames
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes an app's state archive into its container, atomically: a new file (mode 0600, in a
/// 0700 folder) is written and flushed, then renamed over the old one, so a kill at any moment
/// leaves either the previous archive or the new one — never half of one.
struct StateArchiveFile: Sendable {
    let container: URL

    var folder: URL { container.appendingPathComponent(SavedStateLayout.folder, isDirectory: true) }
    var url: URL { container.appendingPathComponent(SavedStateLayout.relativePath) }

    func write(_ bytes: [UInt8]) throws(CourierError) {
        guard bytes.count <= SavedStateLayout.maximumSize else {
            throw CourierError(.limitsExceeded, "the restorable state is \(bytes.count) bytes; at most \(SavedStateLayout.maximumSize) are kept — preserve where the person was, and keep their data in Documents/")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CourierError(.failed, "cannot create \(folder.path): \(error)")
        }
        removeLeftovers()
        let temporary = folder.appendingPathComponent(".state.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("create \(temporary)") }
        guard bytes.withUnsafeBytes({ writeAll(fd, $0) }) else {
            let error = failure("write \(temporary)")
            close(fd)
            unlink(temporary)
            throw error
        }
        guard fsync(fd) == 0 else {
            let error = failure("flush \(temporary)")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, url.path) == 0 else {
            let error = failure("rename \(temporary) to \(url.path)")
            unlink(temporary)
            throw error
        }
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// A save killed midway leaves its temporary file (never the archive): the next save removes
    /// it. One instance of an app runs at a time (it owns its bus name), so no other save is live.
    private func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(".state.") && name.hasSuffix(".tmp") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    private func failure(_ what: String) -> CourierError {
        CourierError(.failed, "cannot \(what): \(String(cString: strerror(errno))); the previous preserved state is kept")
    }
}
