import CourierInbox
import Crypto
import Foundation

/// One upload on its way in, streamed — never held in memory — while its bytes are counted and,
/// when the sender announced a `sha256`, hashed; its blocks reserved up front and written to the
/// disk as it arrives (`StreamingWriter`: directly where the file system allows), so that making
/// it durable at the end is quick. Where it goes:
///
/// - an unnamed file (`O_TMPFILE`) in the target app's Inbox (``init(unnamedIn:bundleID:expectedSize:hashing:)``):
///   the broker's `DropFiles` links it into place after its checks, so each byte is written once;
///   closing it without a drop leaves nothing, whatever happens to the receiver;
/// - else (a file system without unnamed files) a hidden file in the staging folder
///   (`.nearby-<random>`, mode 0600), which the broker copies; removed by ``discard()`` whatever
///   happened, and swept (``sweep(_:)``) at the next start when a receiver was killed meanwhile.
final class StagedUpload {
    static let prefix = ".nearby-"

    /// The staging file's path, or a description of the unnamed file (for messages).
    let path: String
    /// Whether `path` is a name to remove at the end.
    private let named: Bool
    let descriptor: Int32
    let expectedSize: Int64
    private var hasher: SHA256?
    private let writer: StreamingWriter
    /// The body bytes received so far.
    var received: Int64 { writer.count }

    private init(descriptor: Int32, path: String, named: Bool, expectedSize: Int64, hashing: Bool) {
        self.path = path
        self.named = named
        self.descriptor = descriptor
        self.expectedSize = expectedSize
        self.hasher = hashing ? SHA256() : nil
        self.writer = StreamingWriter(descriptor: descriptor)
    }

    /// Reserves the file's blocks up front (`fallocate`): one extent instead of one allocation per
    /// write-back, and a disk too full for the body refuses it before a byte is received. A file
    /// system that cannot (`EOPNOTSUPP`) allocates as the body is written.
    func preallocate() throws(NearbyError) {
        guard expectedSize > 0, let refusal = WritebackPipeline.reserve(descriptor, length: expectedSize) else { return }
        if refusal == ENOSPC || refusal == EDQUOT {
            throw NearbyError(500, "cannot receive \(ByteCount(expectedSize)) into \(path): the disk is full; nothing was kept")
        }
    }

    /// An unnamed file in `bundleID`'s Inbox for `expectedSize` bytes (hashed when `hashing`).
    convenience init(unnamedIn inbox: Inbox, bundleID: String, expectedSize: Int64, hashing: Bool) throws(NearbyError) {
        let fd: Int32
        do {
            fd = try inbox.openUnnamedFile(for: bundleID)
        } catch {
            throw NearbyError(500, error.message)
        }
        self.init(descriptor: fd, path: "an unnamed file in \(inbox.inboxPath(for: bundleID))", named: false, expectedSize: expectedSize, hashing: hashing)
    }

    /// Creates the staging file for `expectedSize` bytes (hashed when `hashing`).
    convenience init(in folder: String, expectedSize: Int64, hashing: Bool) throws(NearbyError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw NearbyError(500, "cannot create the staging folder \(folder): \(error)")
        }
        let path = folder + "/" + Self.prefix + ReceiveSession.token()
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw NearbyError(500, "cannot create \(path): \(String(cString: strerror(errno)))") }
        _ = flock(fd, LOCK_EX | LOCK_NB)   // held while in use: sweep(_:) leaves locked files alone
        self.init(descriptor: fd, path: path, named: true, expectedSize: expectedSize, hashing: hashing)
    }

    deinit { discard() }

    /// Appends body bytes (the server hands them over gathered in 1 MiB buffers,
    /// ``RequestBodyGatherer``); a body longer than announced is refused at the first byte too many.
    func append(_ bytes: UnsafeRawBufferPointer) throws(NearbyError) {
        guard received + Int64(bytes.count) <= expectedSize else {
            throw .invalid("the upload is longer than the \(expectedSize) bytes announced in prepare-upload; nothing was kept")
        }
        hasher?.update(bufferPointer: bytes)
        do { try writer.write(bytes) } catch { throw writeFailure(error) }
    }

    /// Checks the size and the hash against what was announced, and writes what the writer still
    /// holds: the file then has every byte (durable after the delivery's `fsync`).
    func complete(sha256 expected: String?) throws(NearbyError) {
        guard received == expectedSize else {
            throw .invalid("the upload ended after \(received) of the \(expectedSize) bytes announced in prepare-upload; nothing was kept")
        }
        do { try writer.finish() } catch { throw writeFailure(error) }
        if let expected, let hasher {
            let actual = hasher.finalize().hex
            guard actual == expected.lowercased() else {
                throw .invalid("the upload's SHA-256 is \(actual), not the \(expected) announced in prepare-upload; nothing was kept")
            }
        }
    }

    private func writeFailure(_ failure: StreamingWriter.Failure) -> NearbyError {
        NearbyError(500, "cannot write the upload to \(path): \(failure.reason); nothing was kept")
    }

    private var discarded = false

    /// Removes the staging file and closes it (idempotent). An unnamed file the broker has linked
    /// into the Inbox stays there; one it has not vanishes with the descriptor.
    func discard() {
        guard !discarded else { return }
        discarded = true
        if named { unlink(path) }
        close(descriptor)
    }

    /// Removes what a killed receiver left in `folder` (files no running receiver holds locked);
    /// returns the paths removed.
    static func sweep(_ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.map { folder + "/" + $0 }.filter { path in
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return flock(fd, LOCK_EX | LOCK_NB) == 0 && unlink(path) == 0
        }
    }
}
