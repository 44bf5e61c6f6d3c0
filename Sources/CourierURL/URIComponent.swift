/// A component of a URI reference (RFC 3986 §3), used to say where something is wrong and to
/// name the components of a ``URLFormat``.
public enum URIComponent: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case scheme
    /// The whole `userinfo` before `@`.
    case userinfo
    /// The userinfo up to its first `:`.
    case user
    /// The userinfo after its first `:`.
    case password
    case host
    case port
    case path
    case query
    case fragment

    /// The name in prose, with its article: "a query", "the host".
    var phrase: String {
        switch self {
        case .scheme: "a scheme"
        case .userinfo: "the userinfo"
        case .user: "a user name"
        case .password: "a password"
        case .host: "a host"
        case .port: "a port"
        case .path: "a path"
        case .query: "a query"
        case .fragment: "a fragment"
        }
    }

    public var description: String { rawValue }
}
