import Crypto
import Foundation

/// One upload on its way in: a hidden file in the staging folder (`.nearby-<random>`, mode 0600)
/// that the body is streamed into — never held in memory — while its bytes are counted and, when
/// the sender announced a `sha256`, hashed. It stays linked until the broker has copied it (the
/// Inbox refuses deleted files), and is removed by ``discard()`` whatever happened; a receiver
/// killed meanwhile leaves it for ``sweep(_:)`` at the next start.
final class StagedUpload {
    static let prefix = ".nearby-"

    let path: String
    let descriptor: Int32
    let expectedSize: Int64
    private(set) var received: Int64 = 0
    private var hasher: SHA256?
    private var pending: [UInt8] = []
    private static let flushThreshold = 1 << 20

    /// Creates the staging file for `expectedSize` bytes (hashed when `hashing`).
    init(in folder: String, expectedSize: Int64, hashing: Bool) throws(NearbyError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw NearbyError(500, "cannot create the staging folder \(folder): \(error)")
        }
        let path = folder + "/" + Self.prefix + ReceiveSession.token()
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw NearbyError(500, "cannot create \(path): \(String(cString: strerror(errno)))") }
        _ = flock(fd, LOCK_EX | LOCK_NB)   // held while in use: sweep(_:) leaves locked files alone
        self.path = path
        self.descriptor = fd
        self.expectedSize = expectedSize
        self.hasher = hashing ? SHA256() : nil
        pending.reserveCapacity(Self.flushThreshold)
    }

    deinit { discard() }

    /// Appends body bytes; a body longer than announced is refused at the first byte too many.
    func append(_ bytes: UnsafeRawBufferPointer) throws(NearbyError) {
        guard received + Int64(bytes.count) <= expectedSize else {
            throw .invalid("the upload is longer than the \(expectedSize) bytes announced in prepare-upload; nothing was kept")
        }
        received += Int64(bytes.count)
        hasher?.update(bufferPointer: bytes)
        pending.append(contentsOf: bytes)
        if pending.count >= Self.flushThreshold { try flush() }
    }

    /// Writes what is buffered, then checks the size and the hash against what was announced.
    func complete(sha256 expected: String?) throws(NearbyError) {
        try flush()
        guard received == expectedSize else {
            throw .invalid("the upload ended after \(received) of the \(expectedSize) bytes announced in prepare-upload; nothing was kept")
        }
        if let expected, let hasher {
            let actual = hasher.finalize().hex
            guard actual == expected.lowercased() else {
                throw .invalid("the upload's SHA-256 is \(actual), not the \(expected) announced in prepare-upload; nothing was kept")
            }
        }
    }

    private func flush() throws(NearbyError) {
        var offset = 0
        while offset < pending.count {
            let written = pending.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = errno == ENOSPC ? "the disk is full" : String(cString: strerror(errno))
                throw NearbyError(500, "cannot write the upload to \(path): \(reason); nothing was kept")
            }
            offset += written
        }
        pending.removeAll(keepingCapacity: true)
    }

    private var discarded = false

    /// Removes the staging file and closes it (idempotent).
    func discard() {
        guard !discarded else { return }
        discarded = true
        unlink(path)
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
