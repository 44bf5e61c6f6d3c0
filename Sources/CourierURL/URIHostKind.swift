/// Which production of RFC 3986 §3.2.2 a host matched.
public enum URIHostKind: String, Sendable, Hashable, CustomStringConvertible {
    /// A registered name (`www.acme.com`, possibly empty, possibly percent-encoded).
    case regName = "reg-name"
    /// A dotted-decimal IPv4 address without leading zeros (`192.0.2.1`).
    case ipv4 = "IPv4"
    /// A bracketed IPv6 address (`[2001:db8::7]`).
    case ipv6 = "IPv6"
    /// A bracketed future IP literal (`[v1.fe80::a+en1]`).
    case ipvFuture = "IPvFuture"

    public var description: String { rawValue }
}
