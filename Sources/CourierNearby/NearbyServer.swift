import Foundation
public import Logging
public import NIOCore
public import NIOHTTP1
import NIOPosix
import NIOSSL

/// The HTTPS side of a receiver: swift-nio's HTTP/1.1 codec over swift-nio-ssl, with this device's
/// certificate, routing the protocol's routes (v2, and v1's beside them) to ``NearbyReceiver``. Bodies are streamed (an upload
/// goes from the socket to its staging file in 1 MiB writes, with NIO's back-pressure: nothing is
/// held whole in memory); JSON bodies are read up to 4 MiB. Connections have the limits of
/// ``ConnectionLimits``: idle timeout, handshake and head deadlines, at most 64 in all and 8 from
/// one address.
///
/// TLS asks the client for a certificate without requiring one: a v2.2 peer that sends its own
/// (mutual TLS) has its fingerprint proven; any other peer's fingerprint is only what it declares.
public final class NearbyServer: Sendable {
    public typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    public struct Options: Sendable {
        public var host = "0.0.0.0"
        public var port = NearbyProtocol.defaultPort
        public var limits = ConnectionLimits()
        public var maximumJSONBytes = 4 << 20
        /// Plain-HTTP mode (opt-in, `receive --plain-http`): requests without TLS are served too,
        /// for peers that speak only HTTP. A client that starts TLS still gets it.
        public var plainHTTP = false

        public init() {}
    }

    let channel: NIOAsyncChannel<(Connection, ConnectionFacts), Never>
    /// This device, as `info` and `register` answer.
    let device: NearbyDevice
    /// Nil for a scan: it answers `register` but receives nothing.
    let receiver: NearbyReceiver?
    let options: Options
    let logger: Logger
    /// Called for each `register` (the peers that answered an announcement: `scan`).
    let onRegister: @Sendable (NearbyDevice, String) -> Void
    private let slots: ConnectionSlots

    init(channel: NIOAsyncChannel<(Connection, ConnectionFacts), Never>, slots: ConnectionSlots, device: NearbyDevice, receiver: NearbyReceiver?,
         options: Options, logger: Logger, onRegister: @escaping @Sendable (NearbyDevice, String) -> Void) {
        self.channel = channel
        self.slots = slots
        self.device = device
        self.receiver = receiver
        self.options = options
        self.logger = logger
        self.onRegister = onRegister
    }

    /// How many request parts (body parts of up to 1 MiB, ``RequestBodyGatherer``) may wait between
    /// the event loop and the task writing them to disk before the socket stops being read: enough
    /// that the writer never waits on the event loop's hand-off (each a scheduler wake-up on a
    /// loaded machine), few enough that the receiver's RSS grows by well under the 32 MiB target in
    /// a 1 GiB upload (`courier-bench nearby`).
    static let streaming = Connection.Configuration(backPressureStrategy: .init(lowWatermark: 4, highWatermark: 12))

    /// The port bound (useful with port 0).
    public var port: Int { channel.channel.localAddress?.port ?? options.port }

    /// Binds the port; `serve()` then answers.
    public static func bind(device: NearbyDevice, receiver: NearbyReceiver?, identity: NearbyIdentity, options: Options, logger: Logger,
                            onRegister: @escaping @Sendable (NearbyDevice, String) -> Void = { _, _ in }) async throws -> NearbyServer {
        let slots = ConnectionSlots(options.limits)
        let channel = try await slots.bind(host: options.host, port: options.port, tls: try identity.serverTLSContext(), streaming: Self.streaming)
        return NearbyServer(channel: channel, slots: slots, device: device, receiver: receiver, options: options, logger: logger, onRegister: onRegister)
    }

    /// Serves until the task is cancelled or the channel closes.
    public func serve() async throws {
        try await slots.accept(channel, logger: logger, label: "nearby") { connection, facts in await self.serve(connection, facts) }
    }

    // MARK: - One connection

    private func serve(_ connection: Connection, _ facts: ConnectionFacts) async {
        let address = facts.address
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { continue }
                    let answer = try await respond(to: head, parts: &parts, address: address, tls: facts.isTLS, channel: connection.channel)
                    let keepAlive = head.isKeepAlive && answer.bodyConsumed
                    try await write(answer, keepAlive: keepAlive, to: outbound)
                    if !keepAlive { break }
                }
            }
        } catch {
            logger.debug("nearby: connection from \(address) ended: \(error)")
        }
    }

    struct Answer {
        var status: Int
        var json: Data
        /// Whether the request body was read to its end (else the connection must close).
        var bodyConsumed = true

        static func error(_ error: NearbyError, bodyConsumed: Bool = true) -> Answer {
            let body = (try? encoder.encode(["message": error.message])) ?? Data()
            return Answer(status: error.status, json: body, bodyConsumed: bodyConsumed)
        }

        static func ok<T: Encodable>(_ value: T) -> Answer {
            Answer(status: 200, json: (try? encoder.encode(value)) ?? Data("{}".utf8))
        }

        /// Messages carry paths and URLs: no `\/`.
        private static var encoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            return encoder
        }
    }

    private func respond(to head: HTTPRequestHead, parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator,
                         address: String, tls: Bool, channel: any Channel) async throws -> Answer {
        let components = URLComponents(string: head.uri)
        let path = components?.percentEncodedPath ?? head.uri
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        guard tls || options.plainHTTP else {
            _ = try await readBody(&parts, limit: 0)
            logger.notice("nearby: plain HTTP request \(head.method) \(path.prefix(80)) from \(address) on the HTTPS port refused")
            return .error(.invalid("this is a LocalSend HTTPS port: use https://, not http://"), bodyConsumed: false)
        }
        guard let (route, api) = NearbyProtocol.Route.parse(path) else {
            let consumed = try await readBody(&parts, limit: 0) != nil
            return .error(NearbyError(404, "no such route: \(path.prefix(80)); the LocalSend API is under \(NearbyProtocol.API.v2.prefix) (and \(NearbyProtocol.API.v1.prefix))"), bodyConsumed: consumed)
        }
        // v1 names no session: there is only ever one.
        let sessionID = api == .v1 ? query["sessionId"] ?? receiver?.openSessionID : query["sessionId"]
        guard let receiver, ![.info, .register].contains(route) else {
            return try await answerDiscovery(head, route: route, path: path, parts: &parts, address: address)
        }
        switch (head.method, route) {
        case (.POST, .prepareUpload):
            guard let body = try await readBody(&parts, limit: options.maximumJSONBytes) else {
                logger.notice("nearby: prepare-upload from \(address) refused: body larger than \(options.maximumJSONBytes) bytes")
                return .error(NearbyError(413, "the prepare-upload body is larger than \(options.maximumJSONBytes) bytes"), bodyConsumed: false)
            }
            let verified = await Self.clientFingerprint(channel)
            do {
                guard let accepted = try await receiver.prepareUpload(body: body, pin: query["pin"], address: address, verifiedFingerprint: verified) else {
                    return Answer(status: 204, json: Data())
                }
                // v1's send-request answers the tokens alone.
                return api == .v1 ? .ok(accepted.files) : .ok(accepted)
            } catch {
                return .error(error)
            }
        case (.POST, .upload):
            return try await upload(receiver, head: head, sessionID: sessionID, query: query, parts: &parts, address: address)
        case (.POST, .cancel):
            _ = try await readBody(&parts, limit: 0)
            do {
                try receiver.cancel(sessionID: sessionID, address: address)
                return Answer(status: 200, json: Data())
            } catch {
                return .error(error)
            }
        default:
            let consumed = try await readBody(&parts, limit: 0) != nil
            return .error(NearbyError(405, "\(head.method) is not allowed on \(path)"), bodyConsumed: consumed)
        }
    }

    /// `info` and `register`; a scan's server (no receiver) answers only these.
    private func answerDiscovery(_ head: HTTPRequestHead, route: NearbyProtocol.Route, path: String,
                                 parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator, address: String) async throws -> Answer {
        switch (head.method, route) {
        case (.GET, .info):
            _ = try await readBody(&parts, limit: 0)
            return .ok(device.announcing(nil))
        case (.POST, .register):
            guard let body = try await readBody(&parts, limit: 64 << 10) else { return .error(NearbyError(413, "the register body is too large"), bodyConsumed: false) }
            guard let peer = try? JSONDecoder().decode(NearbyDevice.self, from: Data(body)) else {
                return .error(.invalid("the register body is not a LocalSend device (alias, fingerprint, …)"))
            }
            onRegister(peer, address)
            return .ok(device.announcing(nil))
        case (_, .info), (_, .register):
            let consumed = try await readBody(&parts, limit: 0) != nil
            return .error(NearbyError(405, "\(head.method) is not allowed on \(path)"), bodyConsumed: consumed)
        default:
            let consumed = try await readBody(&parts, limit: 0) != nil
            return .error(.rejected("this device is scanning, not receiving"), bodyConsumed: consumed)
        }
    }

    /// Streams an upload's body into its staging file, then delivers it. A broken connection (the
    /// stream throws) is rethrown after the upload is abandoned: nothing is written to it, as
    /// NIO's HTTP error handling may already have answered a request it could not parse.
    private func upload(_ receiver: NearbyReceiver, head: HTTPRequestHead, sessionID: String?, query: [String: String],
                        parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator, address: String) async throws -> Answer {
        let length = head.headers.first(name: "content-length").flatMap { Int64($0) }
        let ticket: NearbyReceiver.UploadTicket
        let staged: StagedUpload
        do {
            ticket = try receiver.beginUpload(sessionID: sessionID, fileID: query["fileId"], token: query["token"], address: address, contentLength: length)
        } catch where error.status == 200 {
            logger.info("nearby: upload from \(address) retried: \(error.message)")
            return Answer(status: 200, json: Data(), bodyConsumed: false)
        } catch {
            return .error(error, bodyConsumed: false)
        }
        do {
            staged = try receiver.stage(ticket)
        } catch {
            receiver.abandonUpload(ticket, reason: error.message)
            return .error(error, bodyConsumed: false)
        }
        var refusal: NearbyError?
        do {
            reading: while true {
                switch try await parts.next() {
                case .body(let buffer):
                    guard receiver.isOpen(ticket) else {
                        refusal = .cancelled
                        break reading
                    }
                    buffer.withUnsafeReadableBytes { bytes in
                        do throws(NearbyError) { try staged.append(bytes) } catch { refusal = error }
                    }
                    if refusal != nil { break reading }
                case .end:
                    break reading
                case .head, nil:
                    refusal = NearbyError(400, "the connection closed after \(staged.received) of \(ticket.file.size) bytes")
                    break reading
                }
            }
        } catch {
            staged.discard()
            receiver.abandonUpload(ticket, reason: "the upload stopped after \(staged.received) of \(ticket.file.size) bytes: \(error)")
            throw error
        }
        if let refusal {
            staged.discard()
            receiver.abandonUpload(ticket, reason: refusal.message)
            return .error(refusal, bodyConsumed: false)
        }
        do {
            _ = try await receiver.finishUpload(ticket, staged: staged)
            return Answer(status: 200, json: Data())
        } catch {
            return .error(error)
        }
    }

    /// Reads a request body to its end, at most `limit` bytes; nil when longer. Throws when the
    /// connection breaks.
    private func readBody(_ parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator, limit: Int) async throws -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let part = try await parts.next() else { throw NearbyError(400, "the connection closed in the middle of a request") }
            switch part {
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= limit else { return nil }
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                return body
            case .head:
                return nil
            }
        }
    }

    private func write(_ answer: Answer, keepAlive: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        var headers = HTTPHeaders()
        if !answer.json.isEmpty { headers.add(name: "content-type", value: "application/json") }
        if answer.status != 204 { headers.add(name: "content-length", value: String(answer.json.count)) }
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        var parts: [HTTPServerResponsePart] = [.head(head)]
        if !answer.json.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: answer.json)))) }
        parts.append(.end(nil))
        try await outbound.write(contentsOf: parts)
    }

    /// The fingerprint of the client's certificate, when it presented one (mutual TLS, v2.2).
    static func clientFingerprint(_ channel: any Channel) async -> String? {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(), let der = try? certificate.toDERBytes() else { return nil }
        return NearbyIdentity.fingerprint(ofDER: der)
    }
}
