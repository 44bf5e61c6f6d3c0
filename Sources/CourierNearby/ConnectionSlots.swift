import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How many connections a server of nearby serves at once: at most `maximumConnections` of its
/// limits in all and `maximumConnectionsPerAddress` from one address (one /64 for IPv6), so that one
/// host cannot take every slot; and the sockets it listens on, whose connections have the limits'
/// deadlines.
final class ConnectionSlots: Sendable {
    let limits: ConnectionLimits
    private let open = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    init(_ limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Takes a slot for `address`, or says why there is none. Give the key back with `release`.
    func admit(_ address: String) -> (key: String?, refusal: String?) {
        let key = Self.addressKey(address)
        let (maximum, perAddress) = (limits.maximumConnections, limits.maximumConnectionsPerAddress)
        return open.withLock { open in
            guard open.byAddress[key, default: 0] < perAddress else { return (nil, "\(perAddress) are open from that address") }
            guard open.total < maximum else { return (nil, "\(maximum) are open") }
            open.byAddress[key, default: 0] += 1
            open.total += 1
            return (key, nil)
        }
    }

    func release(_ key: String) {
        open.withLock { open in
            open.byAddress[key, default: 1] -= 1
            if open.byAddress[key] == 0 { open.byAddress[key] = nil }
            open.total -= 1
        }
    }

    /// Accepts `channel`'s connections until it closes: each that gets a slot is served by
    /// `serve` in a task of its own (its slot given back when that returns); one that does not is
    /// closed at once, with a log line (`label: refused a connection from …`).
    func accept(_ channel: NIOAsyncChannel<(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ConnectionFacts), Never>,
                logger: Logger, label: String,
                serve: @escaping @Sendable (NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ConnectionFacts) async -> Void) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await channel.executeThenClose { inbound in
                for try await (connection, facts) in inbound {
                    let (key, refusal) = admit(facts.address)
                    guard let key else {
                        logger.notice("\(label): refused a connection from \(facts.address): \(refusal ?? "")")
                        try? await connection.channel.close()
                        continue
                    }
                    group.addTask {
                        defer { self.release(key) }
                        await serve(connection, facts)
                    }
                }
            }
        }
    }

    /// What the per-address cap counts: the IPv4 address, or an IPv6 address's /64 (a host on
    /// an IPv6 LAN has a whole /64 to pick source addresses from).
    static func addressKey(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { return bytes[12...].map(String.init).joined(separator: ".") }
        return bytes[0..<8].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The most bytes one read from a connection's socket takes (NIO's adaptive allocator grows to
    /// it while reads fill their buffer; its default stops at 64 KiB): fewer trips through the
    /// pipeline and TLS per byte of a large upload.
    static let maximumRead = 512 << 10

    /// Binds `host`:`port` for a server of nearby: the address reused at once after a restart,
    /// answers sent without delay (`TCP_NODELAY`), socket reads of up to ``maximumRead``, and
    /// each connection set up by ``configure(_:tls:limits:streaming:)``.
    func bind(host: String, port: Int, tls context: NIOSSLContext,
              streaming: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>.Configuration) async throws
        -> NIOAsyncChannel<(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ConnectionFacts), Never> {
        let limits = limits
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 64 << 10, maximum: Self.maximumRead))
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, tls: context, limits: limits, streaming: streaming)
                }
            }
    }

    /// The pipeline of one accepted connection, for every server of nearby: the idle timeout, TLS
    /// or plain HTTP told apart by the first byte (``ProtocolSniffer``), HTTP/1.1, and the short
    /// deadlines of the TLS handshake and each request head (``ConnectionDeadlines``), request
    /// bodies gathered into large buffers (``RequestBodyGatherer``). Any client certificate is
    /// accepted: what it proves is its fingerprint, read after the handshake.
    static func configure(_ channel: any Channel, tls context: NIOSSLContext, limits: ConnectionLimits,
                          streaming: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>.Configuration) throws
        -> (NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, ConnectionFacts) {
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(IdleStateHandler(readTimeout: limits.idleTimeout))
        try sync.addHandler(IdleConnectionCloser())
        let facts = ConnectionFacts(address: channel.remoteAddress?.ipAddress ?? "")
        try sync.addHandler(ProtocolSniffer(facts: facts) {
            NIOSSLServerHandler(context: context) { _, promise in promise.succeed(.certificateVerified) }
        })
        try sync.configureHTTPServerPipeline(withErrorHandling: true)
        try sync.addHandler(ConnectionDeadlines(handshake: limits.handshakeTimeout, head: limits.headTimeout))
        try sync.addHandler(RequestBodyGatherer())
        return (try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: streaming), facts)
    }
}
