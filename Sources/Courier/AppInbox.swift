import CourierNames
public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An app's `Documents/Inbox`: where Courier delivers files dropped on the app (`DropFiles`).
///
/// The iOS contract: the app may read and delete what is in its Inbox, but the files are
/// read-only (mode 0444) and the Inbox is Courier's to write — to change a file, move it out
/// first with `moveOutOfInbox(_:to:)`.
public enum AppInbox {
    /// The app's Inbox folder (it may not exist until the first drop).
    ///
    /// `$COURIER_CONTAINER/Documents/Inbox` when Courier launched the app (it sets
    /// `COURIER_CONTAINER`), else `$XDG_DATA_HOME/courier/containers/<bundleIdentifier>/Documents/Inbox`.
    public static func folderURL(bundleIdentifier: String,
                                 environment: [String: String] = CourierLayout.currentEnvironment()) -> URL {
        Application.defaultContainer(bundleID: bundleIdentifier, environment: environment)
            .appendingPathComponent(CourierLayout.inboxInContainer.joined(separator: "/"), isDirectory: true)
    }

    /// Whether `file` is a file directly inside the app's Inbox (after resolving `.` and `..`):
    /// what an app checks before treating a `file:` URL the broker marked `inbox` as a drop.
    public static func contains(_ file: URL, bundleIdentifier: String,
                                environment: [String: String] = CourierLayout.currentEnvironment()) -> Bool {
        let folder = folderURL(bundleIdentifier: bundleIdentifier, environment: environment).standardizedFileURL.path
        let path = file.standardizedFileURL
        return file.isFileURL && path.deletingLastPathComponent().path == folder && !path.lastPathComponent.isEmpty
    }

    /// Why a move failed.
    public struct MoveError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public let errno: Int32
        public var description: String { message }
    }

    /// Moves `file` out of the Inbox into the folder `destination`, keeping its name or, when that
    /// is taken, numbering it the iOS way (`Report-1.pdf`, …); nothing is ever overwritten.
    /// The moved file becomes writable by its owner. Returns its new URL.
    ///
    /// Within one file system the move is a `link` then `unlink` (atomic, never replaces); across
    /// file systems the file is copied to a new name (`O_EXCL`) and the original removed.
    public static func moveOutOfInbox(_ file: URL, to destination: URL) throws(MoveError) -> URL {
        let source = file.path
        let name = file.lastPathComponent
        let (stem, pathExtension) = split(name)
        for number in 0..<10_000 {
            let candidateName = number == 0 ? name : stem + "-\(number)" + (pathExtension.isEmpty ? "" : "." + pathExtension)
            let target = destination.appendingPathComponent(candidateName, isDirectory: false).path
            if link(source, target) == 0 {
                if unlink(source) != 0 { throw failure("removing \(source) from the Inbox after moving it") }
                try makeWritable(target)
                return URL(fileURLWithPath: target, isDirectory: false)
            }
            switch errno {
            case EEXIST: continue
            case EXDEV:
                guard try copyExclusive(from: source, to: target) else { continue }
                if unlink(source) != 0 { throw failure("removing \(source) from the Inbox after copying it") }
                try makeWritable(target)
                return URL(fileURLWithPath: target, isDirectory: false)
            default:
                throw failure("moving \(source) to \(target)")
            }
        }
        throw MoveError(message: "every name like \(name) is taken in \(destination.path); choose another folder", errno: EEXIST)
    }

    private static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    private static func failure(_ what: String) -> MoveError {
        let code = errno
        return MoveError(message: "\(what) failed: \(String(cString: strerror(code)))", errno: code)
    }

    /// Adds owner write permission (an Inbox file is 0444).
    private static func makeWritable(_ path: String) throws(MoveError) {
        var status = stat()
        guard stat(path, &status) == 0, chmod(path, (status.st_mode & 0o777) | 0o200) == 0 else {
            throw failure("making \(path) writable")
        }
    }

    /// Copies to `target`, created with `O_EXCL`; false when `target` exists.
    private static func copyExclusive(from source: String, to target: String) throws(MoveError) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("opening \(source)") }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if output < 0 {
            if errno == EEXIST { return false }
            throw failure("creating \(target)")
        }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = read(input, &buffer, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let error = failure("reading \(source)")
                unlink(target)
                throw error
            }
            guard buffer[0..<count].withUnsafeBytes({ writeAll(output, $0) }) else {
                let error = failure("writing \(target)")
                unlink(target)
                throw error
            }
        }
        guard fsync(output) == 0 else {
            let error = failure("syncing \(target)")
            unlink(target)
            throw error
        }
        return true
    }
}
