extension URIReference {
    /// Resolves this reference against `base` with the strict algorithm of RFC 3986 §5.2.2
    /// (a reference's own scheme is never ignored).
    /// - Throws: ``URIError`` only when the result exceeds the parsing limits.
    public func resolved(against base: URI, options: URIParsingOptions = .default) throws(URIError) -> URI {
        let b = base.reference
        let scheme: Substring
        var authority: Substring?
        var path: String
        var query: Substring?
        if let ownScheme = rawScheme {
            scheme = ownScheme
            authority = self.authority
            path = Self.removeDotSegments(self.path)
            query = self.query
        } else {
            scheme = b.rawScheme!
            if let ownAuthority = self.authority {
                authority = ownAuthority
                path = Self.removeDotSegments(self.path)
                query = self.query
            } else {
                authority = b.authority
                if self.path.isEmpty {
                    path = String(b.path)
                    query = self.query ?? b.query
                } else {
                    if self.path.hasPrefix("/") {
                        path = Self.removeDotSegments(self.path)
                    } else {
                        path = Self.removeDotSegments(Self.merge(base: b, path: self.path))
                    }
                    query = self.query
                }
            }
        }
        let text = Self.compose(
            scheme: scheme, authority: authority.map(String.init), path: path[...], query: query, fragment: fragment)
        return try URI(URIReference(text, options: options))
    }

    /// RFC 3986 §5.2.3: the base path up to its last `/`, then `path`.
    static func merge(base: URIReference, path: Substring) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return String(path) }
        return String(base.path[...slash]) + path
    }
}

extension URI {
    /// Resolves `reference` against this URI (RFC 3986 §5.2).
    public func resolving(_ reference: URIReference) throws(URIError) -> URI {
        try reference.resolved(against: self)
    }

    /// Parses and resolves `reference` against this URI (RFC 3986 §5.2).
    public func resolving(_ reference: String) throws(URIError) -> URI {
        try URIReference(reference).resolved(against: self)
    }
}
