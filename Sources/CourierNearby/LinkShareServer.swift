import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The network side of a ``LinkShare``: swift-nio HTTP/1.1 over swift-nio-ssl with this device's
/// certificate, on each address given (never on addresses not asked for), serving the page
/// (``LinkSharePage``), `GET info`, `POST prepare-download` and `GET download` (protocol v2,
/// sections 5 and 6.1), and nothing else. Connections have the receiver's limits (``ConnectionLimits``:
/// idle timeout, handshake and head deadlines, at most 64 in all and 8 from one address).
///
/// HTTPS by default: the PIN and the files are private on the network, though a browser warns
/// about the self-signed certificate (docs/share.md). With `plainHTTP` (opt-in) requests without
/// TLS are served too; without it a plain-HTTP request for the page is sent to the https:// page,
/// and one for the API gets a 400 saying to use https://.
public final class LinkShareServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    public struct Options: Sendable {
        /// The addresses to listen on (each one bound on its own).
        public var addresses: [String] = []
        public var port = NearbyProtocol.defaultPort
        public var plainHTTP = false
        public var limits = ConnectionLimits()

        public init() {}
    }

    /// Bytes read from a file and written at once.
    static let chunkSize = 1 << 20

    let channels: [NIOAsyncChannel<(Connection, ConnectionFacts), Never>]
    let share: LinkShare
    let options: Options
    let logger: Logger
    private let slots: ConnectionSlots

    /// The port bound (useful with port 0: every address gets the same).
    public let port: Int

    private init(channels: [NIOAsyncChannel<(Connection, ConnectionFacts), Never>], slots: ConnectionSlots, port: Int, share: LinkShare, options: Options,
                 logger: Logger) {
        self.channels = channels
        self.slots = slots
        self.port = port
        self.share = share
        self.options = options
        self.logger = logger
    }

    /// Binds every address (all on one port: the first one's, when port 0 is asked for). When one
    /// cannot be bound, none stays bound.
    public static func bind(share: LinkShare, identity: NearbyIdentity, options: Options, logger: Logger) async throws -> LinkShareServer {
        guard !options.addresses.isEmpty else { throw NearbyError.invalid("no address to serve on") }
        let context = try identity.serverTLSContext()
        let slots = ConnectionSlots(options.limits)
        var channels: [NIOAsyncChannel<(Connection, ConnectionFacts), Never>] = []
        var port = options.port
        do {
            for address in options.addresses {
                let channel = try await slots.bind(host: address, port: port, tls: context, streaming: .init())
                channels.append(channel)
                port = channel.channel.localAddress?.port ?? port
            }
        } catch {
            for channel in channels { try? await channel.channel.close() }
            throw error
        }
        share.served(on: port)
        return LinkShareServer(channels: channels, slots: slots, port: port, share: share, options: options, logger: logger)
    }

    /// The default address to serve on: the IPv4 address of the interface that holds the default
    /// route (`/proc/net/route`) — the local network a phone beside this computer is on — and not
    /// every interface: a VPN, a container bridge or a second network gets nothing unless named.
    public static func defaultAddress(routes: String = "/proc/net/route") throws(NearbyError) -> String {
        let table = (try? String(contentsOfFile: routes, encoding: .utf8)) ?? ""
        // Iface Destination Gateway Flags RefCnt Use Metric Mask …; the default route has
        // destination and mask 0; the lowest metric wins.
        var best: (interface: String, metric: Int)?
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000" else { continue }
            let metric = Int(fields[6]) ?? 0
            if best == nil || metric < best!.metric { best = (fields[0], metric) }
        }
        guard let interface = best?.interface else {
            throw .invalid("this computer has no default route, so there is no local network to pick; name the address to serve on with --bind ADDRESS")
        }
        let address = ((try? System.enumerateDevices()) ?? []).first { device in
            guard device.name == interface, case .v4 = device.address else { return false }
            return true
        }?.address?.ipAddress
        guard let address else {
            throw .invalid("the interface of the default route (\(interface)) has no IPv4 address; name the address to serve on with --bind ADDRESS")
        }
        return address
    }

    /// Serves until the task is cancelled; then every listening socket is closed (and with the
    /// process, every connection).
    public func serve() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for channel in channels {
                group.addTask {
                    try await withTaskCancellationHandler {
                        try await self.slots.accept(channel, logger: self.logger, label: "link") { connection, facts in await self.serve(connection, facts) }
                    } onCancel: {
                        channel.channel.close(promise: nil)
                    }
                }
            }
        }
    }

    // MARK: - One connection

    private func serve(_ connection: Connection, _ facts: ConnectionFacts) async {
        let local = connection.channel.localAddress
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { continue }
                    let consumed = try await Self.discardBody(&parts)
                    let keepAlive = try await respond(to: head, address: facts.address, tls: facts.isTLS, local: local, outbound: outbound) && head.isKeepAlive && consumed
                    if !keepAlive { break }
                }
            }
        } catch {
            logger.debug("link: connection from \(facts.address) ended: \(error)")
        }
    }

    /// Answers one request; false when the connection must close (a download broken off).
    private func respond(to head: HTTPRequestHead, address: String, tls: Bool, local: SocketAddress?,
                         outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> Bool {
        let components = URLComponents(string: head.uri)
        let path = components?.percentEncodedPath ?? head.uri
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        let api = NearbyProtocol.API.v2.prefix
        guard tls || options.plainHTTP else {
            if head.method == .GET, path == "/", let local, let host = local.ipAddress {
                let authority = host.contains(":") ? "[\(host)]" : host
                try await write(status: .movedPermanently, headers: [("location", "https://\(authority):\(port)/")], to: outbound)
            } else {
                try await writeJSON(.error(.invalid("this share is served over HTTPS: use https://, not http://")), to: outbound)
            }
            return true
        }
        switch (head.method, path) {
        case (.GET, "/"), (.GET, "/index.html"):
            try await write(status: .ok, headers: [("content-type", "text/html; charset=utf-8"), ("content-security-policy", LinkSharePage.contentSecurityPolicy)],
                            body: LinkSharePage.body, to: outbound)
        case (.GET, api + "info"):
            try await writeJSON(.ok(share.device), to: outbound)
        case (.POST, api + "prepare-download"):
            let answer: NearbyServer.Answer
            do throws(NearbyError) {
                let list = try share.prepareDownload(pin: query["pin"], sessionID: query["sessionId"], address: address)
                logger.info("link: \(address) has the list (session \(list.sessionId.prefix(8))…)")
                answer = (try? list.json()).map { NearbyServer.Answer(status: 200, json: $0) } ?? .error(NearbyError(500, "cannot encode the list"))
            } catch {
                logger.notice("link: prepare-download from \(address) refused: \(error)")
                answer = .error(error)
            }
            try await writeJSON(answer, to: outbound)
        case (.GET, api + "download"):
            let found: Result<LinkShare.Item, NearbyError>
            do throws(NearbyError) {
                found = .success(try share.item(sessionID: query["sessionId"], fileID: query["fileId"], address: address))
            } catch {
                found = .failure(error)
            }
            switch found {
            case .success(let item):
                return try await download(item, to: address, outbound: outbound)
            case .failure(let refusal):
                logger.notice("link: download from \(address) refused: \(refusal)")
                try await writeJSON(.error(refusal), to: outbound)
            }
        case (_, "/"), (_, "/index.html"), (_, api + "info"), (_, api + "prepare-download"), (_, api + "download"):
            try await writeJSON(.error(NearbyError(405, "\(head.method) is not allowed on \(path.prefix(80))")), to: outbound)
        default:
            try await writeJSON(.error(NearbyError(404, "no such page: \(path.prefix(80)); this share serves / and \(api)prepare-download, download and info")), to: outbound)
        }
        return true
    }

    /// Streams the file from its descriptor in 1 MiB reads (on NIO's thread pool), with the
    /// writer's back-pressure; checks before each read that the file is still the one shared, and
    /// breaks the download off (closes the connection) when it is not.
    private func download(_ item: LinkShare.Item, to address: String, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> Bool {
        let size = item.file.size
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders(Self.common + [
            ("content-type", "application/octet-stream"),
            ("content-disposition", Self.contentDisposition(item.file.fileName)),
            ("content-length", String(size)),
        ]))))
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(Self.chunkSize), size - offset))
            let (share, at) = (self.share, offset)
            let chunk: [UInt8]? = try await NIOThreadPool.singleton.runIfActive {
                (try? share.check(item)) == nil ? nil : share.read(item, at: at, count: count)
            }
            guard let chunk, !chunk.isEmpty else {
                logger.notice("link: the download of \(item.file.fileName.debugDescription) by \(address) broke off after \(offset) of \(size) bytes: the file changed or could not be read")
                return false
            }
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
            offset += Int64(chunk.count)
        }
        try await outbound.write(.end(nil))
        logger.info("link: \(item.file.fileName.debugDescription) (\(size) bytes) downloaded by \(address)")
        return true
    }

    /// `attachment` with an ASCII fallback name and the real one in RFC 5987 form.
    static func contentDisposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }

    /// On every answer: nothing cached, no referrer, no type sniffing.
    static let common: [(String, String)] = [("cache-control", "no-store"), ("referrer-policy", "no-referrer"), ("x-content-type-options", "nosniff")]

    private func writeJSON(_ answer: NearbyServer.Answer, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        try await write(status: HTTPResponseStatus(statusCode: answer.status), headers: answer.json.isEmpty ? [] : [("content-type", "application/json")],
                        body: answer.json, to: outbound)
    }

    private func write(status: HTTPResponseStatus, headers: [(String, String)], body: Data = Data(),
                       to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders(Self.common + headers + [("content-length", String(body.count))]))
        var parts: [HTTPServerResponsePart] = [.head(head)]
        if !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        parts.append(.end(nil))
        try await outbound.write(contentsOf: parts)
    }

    /// Reads a request's body to its end, keeping nothing (no route here takes one); false when
    /// it is longer than 64 KiB (the connection then closes after the answer).
    private static func discardBody(_ parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator) async throws -> Bool {
        var length = 0
        while let part = try await parts.next() {
            switch part {
            case .body(let buffer):
                length += buffer.readableBytes
                if length > 64 << 10 { return false }
            case .end: return true
            case .head: return false
            }
        }
        throw NearbyError(400, "the connection closed in the middle of a request")
    }
}
