public import NIOCore

/// What a server of nearby (the receiver's, the link share's) allows its connections: a connection
/// silent for `idleTimeout` is closed; the TLS handshake and each request head have shorter
/// deadlines of their own (``ConnectionDeadlines``), so that half-open connections do not hold a
/// slot for the whole idle timeout; at most `maximumConnections` are served at once, and
/// `maximumConnectionsPerAddress` from one address, more are closed at accept (``ConnectionSlots``).
public struct ConnectionLimits: Sendable {
    public var idleTimeout: TimeAmount = .seconds(60)
    public var handshakeTimeout: TimeAmount = .seconds(5)
    public var headTimeout: TimeAmount = .seconds(10)
    public var maximumConnections = 64
    /// From one IPv4 address, or one IPv6 /64 (what one LAN host can take for itself).
    public var maximumConnectionsPerAddress = 8

    public init() {}
}
