/// A URL decoded by a ``URLFormat``: each component and query item the format describes, as a
/// validated value. Components the format does not mention are read from ``uri``.
public struct DecodedURL: Sendable, Hashable {
    /// The URL as parsed.
    public let uri: URIReference
    /// The values of the described components that are present.
    public let components: [URIComponent: URLValue]
    /// The values of the described query items that are present.
    public let queryItems: [String: URLValue]

    public subscript(_ component: URIComponent) -> URLValue? { components[component] }
    public subscript(queryItem name: String) -> URLValue? { queryItems[name] }
}
