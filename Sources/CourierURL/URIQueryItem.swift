/// One `name=value` pair of a `key=value&…` query. The value is nil when the pair has no `=`.
public struct URIQueryItem: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

extension URIReference {
    /// The query split at `&` into raw `name=value` pairs (split at the first `=`), not decoded.
    /// Empty pairs (`a&&b`) are skipped. Nil when there is no query.
    public var rawQueryItems: [(name: Substring, value: Substring?)]? {
        guard let query else { return nil }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (pair, nil) }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
    }

    /// The query's `name=value` pairs, percent-decoded as strict UTF-8.
    /// - Parameter plusAsSpace: decode `+` as a space (HTML forms); off by default.
    /// - Throws: ``URIError`` for bytes that do not decode to UTF-8.
    public func queryItems(plusAsSpace: Bool = false) throws(URIError) -> [URIQueryItem]? {
        guard let raw = rawQueryItems, let base = offset(of: .query), let query else { return nil }
        var items: [URIQueryItem] = []
        items.reserveCapacity(raw.count)
        for (name, value) in raw {
            let nameOffset = base + query.utf8.distance(from: query.startIndex, to: name.startIndex)
            let decodedName = try PercentEncoding.decode(name, plusAsSpace: plusAsSpace, baseOffset: nameOffset, component: .query)
            var decodedValue: String? = nil
            if let value {
                let valueOffset = base + query.utf8.distance(from: query.startIndex, to: value.startIndex)
                decodedValue = try PercentEncoding.decode(value, plusAsSpace: plusAsSpace, baseOffset: valueOffset, component: .query)
            }
            items.append(URIQueryItem(name: decodedName, value: decodedValue))
        }
        return items
    }

    /// The decoded value of the first query item named `name`, if any.
    public func queryValue(_ name: String, plusAsSpace: Bool = false) throws(URIError) -> String? {
        try queryItems(plusAsSpace: plusAsSpace)?.first { $0.name == name }?.value
    }
}
