import CourierTypes
import Crypto
import Foundation
import NIOHTTP1

/// The sending half of protocol v2: `prepare-upload` with every file's name, size, MIME type and
/// SHA-256, then one streamed `upload` per file the receiver accepted; `cancel` if an upload fails.
public struct NearbyUploader: Sendable {
    public let client: NearbyClient
    public let device: NearbyDevice

    public init(client: NearbyClient, device: NearbyDevice) {
        self.client = client
        self.device = device
    }

    /// A local file to send.
    public struct Outgoing: Sendable {
        public var path: String
        public var name: String
        public var size: Int64
        public var descriptor: Int32
    }

    /// Opens every file first (a file that cannot be read fails here, before anything is sent).
    public static func open(_ paths: [String]) throws(NearbyError) -> [Outgoing] {
        var files: [Outgoing] = []
        for path in paths {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            var info = stat()
            guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                let reason = fd < 0 ? String(cString: strerror(errno)) : "not a regular file"
                if fd >= 0 { close(fd) }
                files.forEach { close($0.descriptor) }
                throw .invalid("cannot send \(path): \(reason); nothing was sent")
            }
            files.append(Outgoing(path: path, name: URL(fileURLWithPath: path).lastPathComponent, size: Int64(info.st_size), descriptor: fd))
        }
        return files
    }

    /// Sends `files` (closing them); `progress(sent, total)` as bytes go out. Returns the paths
    /// sent, in order. 401/403/409 and the rest come back as ``NearbyError`` with the receiver's message.
    public func send(_ files: [Outgoing], pin: String?, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws(NearbyError) -> [String] {
        defer { files.forEach { close($0.descriptor) } }
        var metadata: [String: NearbyFile] = [:]
        var byID: [String: Outgoing] = [:]
        for file in files {
            let id = UUID().uuidString.lowercased()
            metadata[id] = NearbyFile(id: id, fileName: file.name, size: file.size, fileType: Self.mimeType(file.name), sha256: try Self.sha256(file))
            byID[id] = file
        }
        let body: Data
        do {
            body = try JSONEncoder().encode(PrepareUploadRequest(info: device.announcing(nil), files: metadata))
        } catch {
            throw NearbyError(500, "cannot encode prepare-upload: \(error)")
        }
        let query = pin.map { "?pin=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
        let prepared = try await call(.POST, NearbyProtocol.Route.prepareUpload.path + query, body: .json(body))
        if prepared.status == 204 { return [] }
        guard prepared.status == 200, let session = try? JSONDecoder().decode(PrepareUploadResponse.self, from: Data(prepared.body)) else {
            throw Self.refusal(prepared, during: "prepare-upload")
        }
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var sent: Int64 = 0
        var delivered: [String] = []
        for (id, file) in byID.sorted(by: { $0.value.path < $1.value.path }) {
            guard let token = session.files[id] else { continue }   // the receiver declined this one
            let before = sent
            let target = NearbyProtocol.Route.upload.path + "?sessionId=\(Self.encode(session.sessionId))&fileId=\(Self.encode(id))&token=\(Self.encode(token))"
            let answer: NearbyClient.Response
            do {
                answer = try await call(.POST, target, body: .file(descriptor: file.descriptor, size: file.size) { progress(before + $0, total) })
            } catch {
                _ = try? await call(.POST, NearbyProtocol.Route.cancel.path + "?sessionId=\(Self.encode(session.sessionId))")
                throw error
            }
            guard answer.status == 200 else {
                _ = try? await call(.POST, NearbyProtocol.Route.cancel.path + "?sessionId=\(Self.encode(session.sessionId))")
                throw Self.refusal(answer, during: "the upload of \(file.name)")
            }
            sent += file.size
            delivered.append(file.path)
        }
        return delivered
    }

    private func call(_ method: HTTPMethod, _ target: String, body: NearbyClient.Body = .empty) async throws(NearbyError) -> NearbyClient.Response {
        do {
            return try await client.request(method, target, body: body, timeout: .seconds(120))
        } catch let error as NearbyError {
            throw error
        } catch {
            throw NearbyError(500, "cannot reach \(client.host):\(client.port) (\(error)); check the address and that a LocalSend receiver runs there")
        }
    }

    static func refusal(_ response: NearbyClient.Response, during step: String) -> NearbyError {
        let why: String
        switch response.status {
        case 401: why = "the receiver wants its PIN (--pin)"
        case 403: why = "the receiver refused"
        case 409: why = "the receiver is busy with another session; try again later"
        case 429: why = "too many attempts; wait a minute"
        default: why = "the receiver answered \(response.status)"
        }
        return NearbyError(response.status, "\(step): \(why): \(response.message)")
    }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? value
    }

    /// SHA-256 of the whole file (read with `pread`, the offset is left alone).
    static func sha256(_ file: Outgoing) throws(NearbyError) -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count >= 0 else { throw NearbyError(500, "cannot read \(file.path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += Int64(count)
        }
        return hasher.finalize().hex
    }

    /// The MIME type shared-mime-info gives the name; octet-stream when it knows none.
    static func mimeType(_ name: String) -> String {
        MIMEDatabase.system.mimeType(forFileName: name) ?? "application/octet-stream"
    }
}
