/// An absolute URI: a ``URIReference`` that has a scheme. This is what crosses Courier (the broker
/// routes by scheme), so its ``scheme`` is not optional.
///
/// Every property of ``URIReference`` is available through dynamic member lookup
/// (`uri.host`, `uri.query`, `uri.decoded(.query)` via ``reference``).
@dynamicMemberLookup
public struct URI: Sendable, Hashable, CustomStringConvertible {
    /// The underlying reference (always with a scheme).
    public let reference: URIReference

    /// Parses `string` and requires a scheme.
    /// - Throws: ``URIError``; ``URIError/Code/missingScheme`` for a relative reference.
    public init(_ string: String, options: URIParsingOptions = .default) throws(URIError) {
        try self.init(try URIReference(string, options: options))
    }

    /// Wraps `reference`, requiring a scheme.
    public init(_ reference: URIReference) throws(URIError) {
        guard reference.hasScheme else {
            throw URIError(
                code: .missingScheme, offset: 0, component: .scheme,
                message: "\"\(reference.string.prefix(40))\" has no scheme: it is a relative reference, not a URL",
                advice: "write the scheme first, e.g. todolist://…")
        }
        self.reference = reference
    }

    /// The lowercased scheme.
    public var scheme: String { reference.scheme! }

    /// The validated scheme.
    public var validatedScheme: URIScheme { try! URIScheme(reference.rawScheme!) }

    /// The URI exactly as parsed.
    public var string: String { reference.string }
    public var description: String { reference.string }

    public subscript<Value>(dynamicMember keyPath: KeyPath<URIReference, Value>) -> Value {
        reference[keyPath: keyPath]
    }

    /// The percent-decoded text of `component` (see ``URIReference/decoded(_:plusAsSpace:)``).
    public func decoded(_ component: URIComponent, plusAsSpace: Bool = false) throws(URIError) -> String? {
        try reference.decoded(component, plusAsSpace: plusAsSpace)
    }
}
