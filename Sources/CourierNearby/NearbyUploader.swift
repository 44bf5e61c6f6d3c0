import CInbox
import CourierInbox
import CourierTypes
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The sending half of the protocol: `prepare-upload` with every file's name, size, MIME type and
/// SHA-256, then one streamed `upload` per file the receiver accepted; `cancel` if an upload fails
/// or the sending task is cancelled (the user interrupted `send`).
/// A v1 receiver gets v1's routes (`send-request`, `send`) and no session ids.
public struct NearbyUploader: Sendable {
    public let client: NearbyClient
    public let device: NearbyDevice
    public let api: NearbyProtocol.API

    public init(client: NearbyClient, device: NearbyDevice, api: NearbyProtocol.API = .v2) {
        self.client = client
        self.device = device
        self.api = api
    }

    /// The generation of the API a receiver whose version is unknown (given by address) speaks:
    /// v2 when `GET /api/localsend/v2/info` answers, v1 when only v1's `info` does (as the
    /// reference app's client does for a v1 peer).
    public static func probe(_ client: NearbyClient) async throws(NearbyError) -> NearbyProtocol.API {
        var answers: [String] = []
        for api in [NearbyProtocol.API.v2, .v1] {
            let answer = try await call(client, .GET, NearbyProtocol.Route.info.path(api), during: "info")
            if answer.status == 200 { return api }
            answers.append("\(NearbyProtocol.Route.info.path(api)) answered \(answer.status)")
            guard answer.status == 404 else { break }
        }
        throw NearbyError(502, "\(client.host):\(client.port) is not a LocalSend receiver (\(answers.joined(separator: ", ")))")
    }

    /// A local file to send.
    public struct Outgoing: Sendable {
        public var path: String
        public var name: String
        public var size: Int64
        public var descriptor: Int32
    }

    /// Opens every file first (a file that cannot be read fails here, before anything is sent);
    /// `verb` and `outcome` say what failed ("cannot send X: …; nothing was sent").
    public static func open(_ paths: [String], verb: String = "send", outcome: String = "nothing was sent") throws(NearbyError) -> [Outgoing] {
        var files: [Outgoing] = []
        for path in paths {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            var info = stat()
            guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                let reason = fd < 0 ? String(cString: strerror(errno)) : "not a regular file"
                if fd >= 0 { close(fd) }
                files.forEach { close($0.descriptor) }
                throw .invalid("cannot \(verb) \(path): \(reason); \(outcome)")
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
        let prepared = try await call(.POST, NearbyProtocol.Route.prepareUpload.path(api) + Self.pinQuery(pin), body: .json(body), during: "prepare-upload")
        if prepared.status == 204 { return [] }
        guard prepared.status == 200, let session = Self.session(prepared.body, api: api) else {
            throw Self.refusal(prepared, during: "prepare-upload")
        }
        let sessionQuery = api == .v1 ? "" : "sessionId=\(Self.encode(session.sessionId))"
        let cancel = NearbyProtocol.Route.cancel.path(api) + (sessionQuery.isEmpty ? "" : "?" + sessionQuery)
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var sent: Int64 = 0
        var delivered: [String] = []
        for (id, file) in byID.sorted(by: { $0.value.path < $1.value.path }) {
            guard let token = session.files[id] else { continue }   // the receiver declined this one
            let before = sent
            let target = NearbyProtocol.Route.upload.path(api) + "?" + (sessionQuery.isEmpty ? "" : sessionQuery + "&")
                + "fileId=\(Self.encode(id))&token=\(Self.encode(token))"
            let answer: NearbyClient.Response
            do {
                answer = try await call(.POST, target, body: .file(descriptor: file.descriptor, size: file.size) { progress(before + $0, total) }, during: "the upload of \(file.name)")
            } catch {
                await cancelSession(cancel)
                if Task.isCancelled {
                    throw NearbyError(500, "interrupted during the upload of \(file.name): the upload was stopped and the receiver asked to cancel the session (POST cancel)"
                                      + (delivered.isEmpty ? "" : "; sent before it: \(delivered.joined(separator: ", "))"))
                }
                throw error
            }
            guard answer.status == 200 else {
                await cancelSession(cancel)
                throw Self.refusal(answer, during: "the upload of \(file.name)")
            }
            sent += file.size
            delivered.append(file.path)
        }
        return delivered
    }

    /// What became of a text message.
    public enum TextDelivery: String, Sendable {
        /// The receiver took it as a message (204: shown, and for a Courier receiver accepted).
        case shown
        /// The receiver took it as a file (200 with a token) and the text was uploaded as one.
        case uploadedAsFile = "uploaded-as-file"
    }

    /// Sends `text` as a LocalSend text message (``NearbyTextMessage``): one text file announced
    /// with the text as its `preview`. A receiver that shows messages answers 204 and nothing
    /// more is sent; one that answers with a token gets the text uploaded as that file.
    public func send(text: String, pin: String?) async throws(NearbyError) -> TextDelivery {
        let bytes = Array(text.utf8)
        guard bytes.count <= NearbyTextMessage.maximumBytes else {
            throw .invalid("the text is \(ByteCount(Int64(bytes.count))); a text message may be at most \(ByteCount(Int64(NearbyTextMessage.maximumBytes))): send it as a file; nothing was sent")
        }
        let id = UUID().uuidString.lowercased()
        let body: Data
        do {
            body = try JSONEncoder().encode(PrepareUploadRequest(info: device.announcing(nil), files: [id: NearbyTextMessage.announcement(of: text, id: id, api: api)]))
        } catch {
            throw NearbyError(500, "cannot encode prepare-upload: \(error)")
        }
        let prepared = try await call(.POST, NearbyProtocol.Route.prepareUpload.path(api) + Self.pinQuery(pin), body: .json(body), during: "prepare-upload")
        if prepared.status == 204 { return .shown }
        guard prepared.status == 200, let session = Self.session(prepared.body, api: api), let token = session.files[id] else {
            throw Self.refusal(prepared, during: "prepare-upload")
        }
        let file = try Self.memoryFile(bytes)
        defer { close(file) }
        let sessionQuery = api == .v1 ? "" : "sessionId=\(Self.encode(session.sessionId))&"
        let answer = try await call(.POST, NearbyProtocol.Route.upload.path(api) + "?" + sessionQuery + "fileId=\(Self.encode(id))&token=\(Self.encode(token))",
                                    body: .file(descriptor: file, size: Int64(bytes.count)) { _ in }, during: "the upload of the text")
        guard answer.status == 200 else { throw Self.refusal(answer, during: "the upload of the text") }
        return .uploadedAsFile
    }

    private static func pinQuery(_ pin: String?) -> String {
        pin.map { "?pin=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
    }

    /// `bytes` in an unnamed file (0600) in the temporary folder, for the client's file body.
    private static func memoryFile(_ bytes: [UInt8]) throws(NearbyError) -> Int32 {
        let folder = Glibc.open(ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let fd = folder < 0 ? -1 : cinbox_open_tmpfile(folder, 0o600)
        if folder >= 0 { close(folder) }
        guard fd >= 0 else { throw NearbyError(500, "cannot hold the text to upload: \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else {
            close(fd)
            throw NearbyError(500, "cannot hold the text to upload: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// `POST cancel` for the session, whatever the answer; sent even when the sending task was
    /// cancelled (from a task of its own, which is not).
    private func cancelSession(_ target: String) async {
        let client = client
        await Task.detached { _ = try? await Self.call(client, .POST, target, during: "cancel") }.value
    }

    private func call(_ method: HTTPMethod, _ target: String, body: NearbyClient.Body = .empty, during step: String) async throws(NearbyError) -> NearbyClient.Response {
        try await Self.call(client, method, target, body: body, during: step)
    }

    private static func call(_ client: NearbyClient, _ method: HTTPMethod, _ target: String, body: NearbyClient.Body = .empty,
                             during step: String) async throws(NearbyError) -> NearbyClient.Response {
        let place = "\(client.usesTLS ? "https" : "http")://\(client.host):\(client.port)"
        do {
            return try await client.request(method, target, body: body, timeout: .seconds(120))
        } catch let error as NearbyError {
            throw NearbyError(error.status, "\(step): \(error.message)")
        } catch where client.usesTLS && String(describing: error).contains("WRONG_VERSION_NUMBER") {
            throw NearbyError(502, "\(place) does not speak HTTPS (a plain-HTTP LocalSend receiver answers that way); nothing was sent. To send without encryption, give --to-device http://\(client.host):\(client.port)")
        } catch where isConnectFailure(error) {
            throw NearbyError(500, "cannot reach \(place) (\(error)); check the address and that a LocalSend receiver runs there")
        } catch {
            throw NearbyError(500, "\(step): \(place) closed the connection without an answer (\(error)): the receiver declined, cancelled or stopped the transfer")
        }
    }

    /// Whether the connection was never made (nobody listens, no route), as against one the
    /// receiver closed.
    private static func isConnectFailure(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if case ChannelError.connectTimeout = error { return true }
        if let error = error as? IOError { return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT].contains(error.errnoCode) }
        return false
    }

    /// The session in `prepare-upload`'s answer: v2's `{sessionId, files}`, v1's bare `files`.
    static func session(_ body: [UInt8], api: NearbyProtocol.API) -> PrepareUploadResponse? {
        switch api {
        case .v2: try? JSONDecoder().decode(PrepareUploadResponse.self, from: Data(body))
        case .v1: (try? JSONDecoder().decode([String: String].self, from: Data(body))).map { PrepareUploadResponse(sessionId: "", files: $0) }
        }
    }

    static func refusal(_ response: NearbyClient.Response, during step: String) -> NearbyError {
        let why: String
        switch response.status {
        case 401: why = "the receiver wants its PIN (--pin)"
        case 403: why = step == "prepare-upload" ? "the receiver declined" : "the receiver refused (a cancelled session takes no more files)"
        case 409: why = "the receiver is busy with another session; try again later"
        // The v2.2 checksum check: the SHA-256 of what arrived is not the one announced (localsendd
        // also answers so when its person cancels half-way, having hashed only part of the body).
        case 422: why = "the receiver did not get the file as announced (its SHA-256 of what arrived differs) or stopped taking it"
        case 429: why = "too many attempts; wait a moment"
        case 500...: why = "the receiver failed"
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
