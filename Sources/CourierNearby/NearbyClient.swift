public import Foundation
public import NIOCore
public import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// The HTTPS client side of protocol v2: one request per connection, over swift-nio-ssl with this
/// device's certificate presented (receivers that ask for it — mutual TLS, v2.2 — learn a proven
/// fingerprint). Peers' certificates are self-signed, so no chain is verified; instead the
/// server's fingerprint is returned, and refused when an expected one (learnt from discovery)
/// differs. Plain HTTP (`usesTLS` false) is only for peers that announced `"protocol": "http"`,
/// which discovery answers (a `register` body is this device's public description).
public struct NearbyClient: Sendable {
    public typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    public let identity: NearbyIdentity
    public let host: String
    public let port: Int
    /// The receiver's fingerprint as discovery reported it; nil when the address was given.
    public let expectedFingerprint: String?
    public let usesTLS: Bool

    public init(identity: NearbyIdentity, host: String, port: Int, expectedFingerprint: String? = nil, usesTLS: Bool = true) {
        self.identity = identity
        self.host = host
        self.port = port
        self.expectedFingerprint = expectedFingerprint
        self.usesTLS = usesTLS
    }

    /// A request's body: nothing, JSON, or a file streamed from its descriptor in 1 MiB reads.
    public enum Body: Sendable {
        case empty
        case json(Data)
        case file(descriptor: Int32, size: Int64, progress: @Sendable (Int64) -> Void)
    }

    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
        /// The server certificate's fingerprint (uppercase hex SHA-256).
        public var serverFingerprint: String?

        /// The receiver's `{"message": …}`, or the body as text.
        public var message: String {
            if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let message = object["message"] as? String { return message }
            return String(decoding: body.prefix(300), as: UTF8.self)
        }
    }

    /// Sends `method` `target` (path and query) with `body`; returns the status and body.
    public func request(_ method: HTTPMethod, _ target: String, body: Body = .empty, timeout: TimeAmount = .seconds(30)) async throws -> Response {
        let material = try identity.tlsMaterial()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.certificateChain = [.certificate(material.certificate)]
        tls.privateKey = .privateKey(material.key)
        let context = try NIOSSLContext(configuration: tls)
        let usesTLS = usesTLS
        let (connection, handshake) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(min(timeout, .seconds(10)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(IdleStateHandler(readTimeout: timeout))
                    try sync.addHandler(IdleConnectionCloser())
                    var handshake = channel.eventLoop.makeSucceededVoidFuture()
                    if usesTLS {
                        try sync.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                        let watcher = HandshakeWatcher(promise: channel.eventLoop.makePromise())
                        try sync.addHandler(watcher)
                        handshake = watcher.promise.futureResult
                    }
                    try sync.addHTTPClientHandlers()
                    return (try Connection(wrappingChannelSynchronously: channel), handshake)
                }
            }
        return try await connection.executeThenClose { inbound, outbound in
            // Nothing is sent (not even the path, which may carry the PIN) before the server's
            // certificate has been seen and, when one is expected, matched.
            try await handshake.get()
            let fingerprint = usesTLS ? await Self.serverFingerprint(connection.channel) : nil
            if usesTLS, let expectedFingerprint, !NearbyIdentity.same(fingerprint ?? "", expectedFingerprint) {
                throw NearbyError(403, "\(host):\(port) presented the certificate \(fingerprint ?? "none"), not the \(expectedFingerprint) it announced; nothing was sent")
            }
            var headers = HTTPHeaders()
            headers.add(name: "host", value: "\(host):\(port)")
            headers.add(name: "connection", value: "close")
            switch body {
            case .empty:
                headers.add(name: "content-length", value: "0")
            case .json(let data):
                headers.add(name: "content-type", value: "application/json")
                headers.add(name: "content-length", value: String(data.count))
            case .file(_, let size, _):
                headers.add(name: "content-type", value: "application/octet-stream")
                headers.add(name: "content-length", value: String(size))
            }
            var responses = inbound.makeAsyncIterator()
            do {
                try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)))
                switch body {
                case .empty:
                    break
                case .json(let data):
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: data))))
                case .file(let descriptor, let size, let progress):
                    try await Self.stream(descriptor, size: size, to: outbound, allocator: connection.channel.allocator, progress: progress)
                }
                try await outbound.write(.end(nil))
            } catch {
                // Interrupted here (the sender's task was cancelled): the connection closes now.
                if error is CancellationError { throw error }
                // A receiver that refuses a body (a cancelled session, a declined file) answers
                // and closes while it is still being sent: its answer says what happened.
                if let answer = try? await Self.response(&responses, serverFingerprint: fingerprint) { return answer }
                throw NearbyError(500, "\(host):\(port) closed the connection while the request was being sent, without an answer (it stopped or cancelled the transfer)")
            }
            guard let answer = try await Self.response(&responses, serverFingerprint: fingerprint) else {
                throw NearbyError(500, "\(host):\(port) closed the connection without an answer")
            }
            return answer
        }
    }

    /// The answer, or nil when the connection ends before its end.
    private static func response(_ parts: inout NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator, serverFingerprint: String?) async throws -> Response? {
        var status = 0
        var received: [UInt8] = []
        while let part = try await parts.next() {
            switch part {
            case .head(let head): status = Int(head.status.code)
            case .body(let buffer): if received.count < 1 << 20 { received.append(contentsOf: buffer.readableBytesView) }
            case .end: return Response(status: status, body: received, serverFingerprint: serverFingerprint)
            }
        }
        return nil
    }

    /// The file in 1 MiB reads, each written when the connection can take it (NIO's back-pressure).
    private static func stream(_ descriptor: Int32, size: Int64, to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
                               allocator: ByteBufferAllocator, progress: @Sendable (Int64) -> Void) async throws {
        var sent: Int64 = 0
        while sent < size {
            try Task.checkCancellation()
            var buffer = allocator.buffer(capacity: 1 << 20)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 20) { bytes in
                let want = Int(min(Int64(bytes.count), size - sent))
                let got = pread(descriptor, bytes.baseAddress, want, off_t(sent))
                guard got >= 0 else { throw NearbyError(500, "cannot read the file: \(String(cString: strerror(errno)))") }
                return got
            }
            guard count > 0 else { throw NearbyError(500, "the file ended after \(sent) of \(size) bytes (did it shrink while being sent?)") }
            try await outbound.write(.body(.byteBuffer(buffer)))
            sent += Int64(count)
            progress(sent)
        }
    }

    static func serverFingerprint(_ channel: any Channel) async -> String? {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(), let der = try? certificate.toDERBytes() else { return nil }
        return NearbyIdentity.fingerprint(ofDER: der)
    }
}

/// Completes its promise when the TLS handshake has finished (or fails it when the connection
/// ends first), so that the client sends nothing before it has seen the server's certificate.
final class HandshakeWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(NearbyError(500, "the connection closed during the TLS handshake"))
        context.fireChannelInactive()
    }

    /// A connection that never became active (refused, timed out) ends here: the promise must
    /// still be completed.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(NearbyError(500, "the connection closed before the TLS handshake"))
    }
}
