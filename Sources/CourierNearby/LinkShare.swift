import CourierNames
public import Foundation
import Synchronization

/// A share via link (docs/share.md): items served over the LocalSend protocol's download API
/// (`prepare-download`, `download`, section 5) to a browser or a LocalSend client, behind a PIN,
/// for as long as the share runs. This type holds the rules, without the network
/// (``LinkShareServer`` serves it).
///
/// Each file is opened once, when it is shared, and only those descriptors are ever read: a
/// request names a file by its random id, never by a path, so nothing else on the disk can be
/// reached (no traversal, no link followed later). A file renamed or removed after sharing is
/// still served as it was (its descriptor still reads it); one whose size or modification time
/// moved (written to in place) is refused (410), also in the middle of a download, which then breaks off —
/// a downloader never gets bytes other than those shared under the size announced.
///
/// The PIN is checked as a receiver's is (``PINGate``: wrong PINs counted for the share as a
/// whole, a back-off after each, none accepted after ``NearbyPIN/budget``). A correct PIN opens a
/// session for the address it came from; `download` needs that session id from that address. A
/// page reloaded by the same address gets its session back with the id alone (`?sessionId=`).
public final class LinkShare: Sendable {
    /// One shared file: what the downloader is told, and the open descriptor it is read from.
    public struct Item: Sendable {
        public let file: NearbyFile
        public let path: String
        let descriptor: Int32
        let identity: FileIdentity
    }

    /// What must not change while a file is shared.
    struct FileIdentity: Equatable {
        var size: Int64, modified: timespec
        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.size == b.size && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    /// The `prepare-download` answer (protocol v2, section 5.2).
    public struct PrepareDownloadResponse: Sendable {
        public var info: NearbyDevice
        public var sessionId: String
        /// In the order the files were shared.
        public var files: [NearbyFile]

        /// The JSON, with `files` an object keyed by id in the order shared (the page lists
        /// them so; an encoder's dictionary would not keep it).
        public func json() throws -> Data {
            let encoder = JSONEncoder()
            var out = Data("{\"info\":".utf8) + (try encoder.encode(info)) + Data(",\"sessionId\":".utf8) + (try encoder.encode(sessionId))
            out += Data(",\"files\":{".utf8)
            for (index, file) in files.enumerated() {
                if index > 0 { out += Data(",".utf8) }
                out += try encoder.encode(file.id) + Data(":".utf8) + encoder.encode(file)
            }
            return out + Data("}}".utf8)
        }
    }

    /// Sessions kept at once; a new one beyond this replaces the oldest.
    public static let maximumSessions = 32

    public let items: [Item]
    /// This device as `info` and `prepare-download` describe it (`download: true`, the port served on).
    public var device: NearbyDevice { announced.withLock { $0 } }
    private let announced: Mutex<NearbyDevice>
    let pinGate: PINGate
    public var pin: String { pinGate.pin }
    private let sessions = Mutex<[(id: String, address: String)]>([])

    /// Opens every file (one that cannot be read, is not a regular file or has a name a receiver
    /// would refuse fails here, before anything is served) and makes the PIN's gate.
    public init(paths: [String], device: NearbyDevice, pin: String = NearbyPIN.generate(), pinBackoff: Duration = .seconds(1),
                onPINBudgetSpent: (@Sendable (String) -> Void)? = nil) throws(NearbyError) {
        guard !paths.isEmpty else { throw .invalid("nothing to share: give at least one file") }
        let opened = try NearbyUploader.open(paths, verb: "share", outcome: "nothing is served")
        var items: [Item] = []
        for file in opened {
            var info = stat()
            do throws(NearbyError) {
                try NearbyFileName.validate(file.name)
                guard fstat(file.descriptor, &info) == 0 else { throw NearbyError(500, "cannot read \(file.path): \(String(cString: strerror(errno)))") }
            } catch {
                opened.forEach { close($0.descriptor) }
                throw NearbyError(error.status, "cannot share \(CleanText.escaped(file.path)): \(error.message)")
            }
            let id = Self.randomID()
            items.append(Item(file: NearbyFile(id: id, fileName: file.name, size: file.size, fileType: NearbyUploader.mimeType(file.name)),
                              path: file.path, descriptor: file.descriptor, identity: Self.identity(info)))
        }
        self.items = items
        var device = device
        device.download = true
        announced = Mutex(device)
        pinGate = PINGate(pin: pin, backoff: pinBackoff, holder: "this share") { address in
            onPINBudgetSpent?("""
                \(NearbyPIN.budget) wrong PINs have been tried (the last from \(address)): this share accepts no PIN any more. \
                Someone on the network may be guessing it. Those who have the list keep it; to let others in, share again (a new PIN).
                """)
        }
    }

    /// Records the port the share is served on (chosen by the kernel for port 0).
    func served(on port: Int) {
        announced.withLock { $0.port = port }
    }

    deinit {
        for item in items { close(item.descriptor) }
    }

    /// `POST prepare-download`: the list and a session, for the PIN or for a session this address
    /// already has.
    public func prepareDownload(pin: String?, sessionID: String?, address: String) throws(NearbyError) -> PrepareDownloadResponse {
        let files = items.map(\.file)
        if let sessionID, hasSession(sessionID, address: address) {
            return PrepareDownloadResponse(info: device, sessionId: sessionID, files: files)
        }
        try pinGate.check(pin, from: address)
        let id = Self.randomID()
        sessions.withLock { sessions in
            sessions.append((id, address))
            if sessions.count > Self.maximumSessions { sessions.removeFirst() }
        }
        return PrepareDownloadResponse(info: device, sessionId: id, files: files)
    }

    /// The item `download` asks for: 400 without both ids, 403 for a session that is not this
    /// address's, 404 for a file not shared, 410 for one changed since.
    public func item(sessionID: String?, fileID: String?, address: String) throws(NearbyError) -> Item {
        guard let sessionID, let fileID else { throw .invalid("download needs sessionId and fileId (from prepare-download)") }
        guard hasSession(sessionID, address: address) else {
            throw .rejected("no such session for this address; open the share's page again (POST prepare-download with the PIN)")
        }
        guard let item = items.first(where: { PINGate.constantTimeEqual($0.file.id, fileID) }) else {
            throw NearbyError(404, "no file \(CleanText.escaped(fileID.prefix(80)).debugDescription) in this share")
        }
        try check(item)
        return item
    }

    /// 410 when the file is no longer the one shared (its size or modification time moved).
    public func check(_ item: Item) throws(NearbyError) {
        var info = stat()
        guard fstat(item.descriptor, &info) == 0, Self.identity(info) == item.identity else {
            throw NearbyError(410, "\(item.file.fileName) changed after it was shared; it is no longer served (share it again)")
        }
    }

    /// Reads up to `count` bytes of `item` at `offset` (nil at a read error).
    func read(_ item: Item, at offset: Int64, count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(item.descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { return nil }
        buffer.removeLast(count - got)
        return buffer
    }

    private func hasSession(_ id: String, address: String) -> Bool {
        sessions.withLock { sessions in
            sessions.contains { PINGate.constantTimeEqual($0.id, id) && $0.address == address }
        }
    }

    /// 128 random bits in hex.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    private static func identity(_ info: stat) -> FileIdentity {
        FileIdentity(size: Int64(info.st_size), modified: info.st_mtim)
    }
}
