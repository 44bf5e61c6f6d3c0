public import CourierURL

/// The components of a URI reference in the one form both CourierURL and liburiparser can be read
/// into, so that their readings of the same input compare with `==`.
///
/// Every text is the component as written (percent-encoded, case kept). The host is written
/// without the brackets of an IP literal (uriparser's `hostText`; CourierURL keeps them), and its
/// kind comes with it. The path is uriparser's segments joined with `/`, after a leading `/` when
/// there is an authority or the path is absolute; CourierURL's is the slice of the input.
public struct ComparableComponents: Hashable, Sendable, CustomStringConvertible {
    public var scheme: String?
    public var userinfo: String?
    public var host: String?
    public var hostKind: LibURIParser.HostKind?
    /// The port digits as written (`""` for `http://h:/`), nil without a `:`.
    public var port: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// uriparser's reading.
    public init(_ parsed: LibURIParser.Parsed) {
        scheme = parsed.scheme.map(Self.text)
        userinfo = parsed.userinfo.map(Self.text)
        host = parsed.host.map(Self.text)
        hostKind = parsed.hostKind
        port = parsed.port.map(Self.text)
        var segments: [String] = []
        parsed.forEachPathSegment { segments.append(Self.text($0)) }
        let leadingSlash = parsed.absolutePath || (parsed.host != nil && !segments.isEmpty)
        path = (leadingSlash ? "/" : "") + segments.joined(separator: "/")
        query = parsed.query.map(Self.text)
        fragment = parsed.fragment.map(Self.text)
    }

    /// CourierURL's reading.
    public init(_ reference: URIReference) {
        scheme = reference.rawScheme.map(String.init)
        userinfo = reference.userinfo.map(String.init)
        let kind: LibURIParser.HostKind? = switch reference.hostKind {
        case .regName: .regName
        case .ipv4: .ipv4
        case .ipv6: .ipv6
        case .ipvFuture: .ipvFuture
        case nil: nil
        }
        hostKind = kind
        host = reference.host.map { kind == .ipv6 || kind == .ipvFuture ? String($0.dropFirst().dropLast()) : String($0) }
        port = reference.rawPort.map(String.init)
        path = String(reference.path)
        query = reference.query.map(String.init)
        fragment = reference.fragment.map(String.init)
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    public var description: String {
        func show(_ value: String?) -> String { value.map { $0.debugDescription } ?? "nil" }
        return "scheme \(show(scheme)), userinfo \(show(userinfo)), host \(show(host)) (\(hostKind.map { "\($0)" } ?? "none")), "
            + "port \(show(port)), path \(path.debugDescription), query \(show(query)), fragment \(show(fragment))"
    }
}
