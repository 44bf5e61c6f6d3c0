extension URIReference {
    /// Builds a reference from raw (already percent-encoded) components, RFC 3986 §5.3, and
    /// validates the result. Pass `host` to have an authority (`""` for an empty host).
    /// - Throws: ``URIError`` when a component holds characters its position does not allow, or
    ///   when the components cannot be told apart again once joined (a path without a leading `/`
    ///   after an authority, a path starting with `//` without one).
    public init(
        scheme: String?, userinfo: String? = nil, host: String? = nil, port: Int? = nil,
        path: String = "", query: String? = nil, fragment: String? = nil,
        options: URIParsingOptions = .default
    ) throws(URIError) {
        let hasAuthority = host != nil || userinfo != nil || port != nil
        if hasAuthority, !path.isEmpty, !path.hasPrefix("/") {
            throw URIError(
                code: .disallowedCharacter, offset: 0, component: .path,
                message: "the path \"\(path.prefix(40))\" follows an authority but does not start with '/'",
                advice: "start the path with '/' or leave it empty")
        }
        if !hasAuthority, path.hasPrefix("//") {
            throw URIError(
                code: .disallowedCharacter, offset: 0, component: .path,
                message: "the path \"\(path.prefix(40))\" starts with '//' and there is no authority: it would read as one",
                advice: "start the path with '/.//' or give a host")
        }
        let text = Self.compose(
            scheme: scheme?[...], authority: hasAuthority ? Self.authority(userinfo: userinfo?[...], host: (host ?? "")[...], port: port.map { String($0)[...] }) : nil,
            path: path[...], query: query?[...], fragment: fragment?[...])
        let parsed = try URIReference(text, options: options)
        // A delimiter inside a component moves the boundaries: refuse instead of reinterpreting.
        let mismatch: URIComponent? =
            parsed.rawScheme.map(String.init) != scheme ? .scheme
            : parsed.userinfo.map(String.init) != userinfo ? .userinfo
            : parsed.host.map(String.init) != (hasAuthority ? host ?? "" : nil) ? .host
            : parsed.port != port ? .port
            : parsed.path != path[...] ? .path
            : parsed.query.map(String.init) != query ? .query
            : parsed.fragment.map(String.init) != fragment ? .fragment : nil
        if let mismatch {
            throw URIError(
                code: .disallowedCharacter, offset: parsed.offset(of: mismatch) ?? 0, component: mismatch,
                message: "\(mismatch.phrase) holds a delimiter that ends it early when the URL is written out",
                advice: "percent-encode the delimiter (e.g. '?' as %3F, '#' as %23, '@' as %40)")
        }
        self = parsed
    }

    /// Joins `[userinfo "@"] host [":" port]`.
    static func authority(userinfo: Substring?, host: Substring, port: Substring?) -> String {
        var text = ""
        if let userinfo { text += userinfo; text += "@" }
        text += host
        if let port { text += ":"; text += port }
        return text
    }

    /// RFC 3986 §5.3 component recomposition. A path that starts with `//` without an authority
    /// gets a `/.` prefix so it cannot be read back as an authority.
    static func compose(
        scheme: Substring?, authority: String?, path: Substring, query: Substring?, fragment: Substring?
    ) -> String {
        var text = ""
        text.reserveCapacity((scheme?.utf8.count ?? 0) + (authority?.utf8.count ?? 0) + path.utf8.count
            + (query?.utf8.count ?? 0) + (fragment?.utf8.count ?? 0) + 8)
        if let scheme { text += scheme; text += ":" }
        if let authority {
            text += "//"
            text += authority
        } else if path.hasPrefix("//") {
            text += "/."
        }
        text += path
        if let query { text += "?"; text += query }
        if let fragment { text += "#"; text += fragment }
        return text
    }

    /// The reference written out again from its parsed components (RFC 3986 §5.3). Always equal
    /// to ``string``: components are kept exactly as given.
    public func recomposed() -> String {
        Self.compose(scheme: rawScheme, authority: authority.map(String.init), path: path, query: query, fragment: fragment)
    }
}
