#if canImport(Glibc)
import Glibc
#endif

/// A file being written in an Inbox, not yet visible under its final name.
///
/// It is published with no-replace semantics only (`linkat`, `renameat2(RENAME_NOREPLACE)`):
/// two drops racing for `Report.pdf` cannot overwrite each other or anything the app put there —
/// the loser gets `EEXIST` and takes the next number. There is no check-then-create window.
/// If it is dropped unpublished, its temporary name (if any) is removed.
final class StagedFile {
    /// The prefix of temporary names; `InboxFileName` never produces a name starting with `.`,
    /// so no delivered file can match it.
    static let temporaryNamePrefix = ".courier-partial-"

    let descriptor: OwnedDescriptor
    /// The Inbox folder, borrowed: its owner keeps it open for this object's whole life.
    private let directory: Int32
    /// The hidden name while it is written (nil for an `O_TMPFILE` file, which has none).
    private let temporaryName: String?
    /// Its final name once published.
    private(set) var publishedName: String?

    private init(descriptor: consuming OwnedDescriptor, directory: Int32, temporaryName: String?) {
        self.descriptor = descriptor
        self.directory = directory
        self.temporaryName = temporaryName
    }

    deinit {
        if publishedName == nil, let temporaryName {
            try? Sys.unlink(directory, temporaryName)
        }
    }

    /// Whether unnamed files can be published here: `linkat` needs `/proc/self/fd`.
    private static let procFileDescriptorsAvailable = access("/proc/self/fd", F_OK) == 0

    /// A new, empty staged file in `directory` (the Inbox) by `strategy`.
    static func create(in directory: Int32, strategy: StagingStrategy) throws(Errno) -> StagedFile {
        if strategy != .namedTemporaryFile && procFileDescriptorsAvailable {
            do {
                let fd = try Sys.openUnnamedFile(in: directory, mode: 0o600)
                return StagedFile(descriptor: fd, directory: directory, temporaryName: nil)
            } catch {
                // File systems without O_TMPFILE answer EOPNOTSUPP (or EISDIR on old kernels).
                if strategy == .unnamedTemporaryFile { throw error }
            }
        }
        while true {
            let name = temporaryNamePrefix + "\(getpid())-" + randomHex(bytes: 8)
            let fd: OwnedDescriptor
            do {
                fd = try Sys.openAt(directory, name, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
            } catch let error where error == .exists {
                continue
            }
            // The lock tells a concurrent sweep that this file is alive.
            try? Sys.lock(fd.rawValue, LOCK_EX)
            return StagedFile(descriptor: fd, directory: directory, temporaryName: name)
        }
    }

    /// An unnamed file a writer already filled (`O_TMPFILE` on the Inbox's file system), taken as
    /// it is; a duplicate of `descriptor` is kept (the caller's stays the caller's).
    static func adopting(_ descriptor: Int32, in directory: Int32) throws(Errno) -> StagedFile {
        StagedFile(descriptor: try Sys.duplicateOwned(descriptor), directory: directory, temporaryName: nil)
    }

    /// Gives the file the first free name among `name.candidate(0)`, `candidate(1)`, … and returns it.
    /// - Throws: a system error, or `namesExhausted` when `attempts` names in a row are taken.
    func publish(as name: InboxFileName, attempts: Int = 10_000) throws(PublishFailure) -> String {
        for number in 0..<attempts {
            let candidate = name.candidate(number)
            do {
                if let temporaryName {
                    try publishNamed(temporaryName, as: candidate)
                } else {
                    try Sys.link(AT_FDCWD, "/proc/self/fd/\(descriptor.rawValue)", directory, candidate, flags: AT_SYMLINK_FOLLOW)
                }
                publishedName = candidate
                return candidate
            } catch let error where error == .exists {
                continue
            } catch {
                throw .system(error)
            }
        }
        throw .namesExhausted(lastTried: name.candidate(attempts - 1))
    }

    /// Why publishing failed.
    enum PublishFailure: Error {
        case system(Errno)
        case namesExhausted(lastTried: String)
    }

    /// Renames the hidden file without replacing anything; where the file system has no
    /// `RENAME_NOREPLACE`, links then unlinks (a link never replaces either).
    private func publishNamed(_ temporaryName: String, as candidate: String) throws(Errno) {
        do {
            try Sys.renameWithoutReplacing(directory, temporaryName, to: candidate)
        } catch let error where error == .invalid || error == .noSystemCall || error == .notSupported {
            try Sys.link(directory, temporaryName, directory, candidate, flags: 0)
            try? Sys.unlink(directory, temporaryName)
        }
    }

    /// Removes the published name again (rolling back a drop that failed on a later file).
    func unpublish() {
        if let publishedName {
            try? Sys.unlink(directory, publishedName)
            self.publishedName = nil
        }
    }

    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }
}
