/// An app's URL format, declared once: which schemes, which components it uses, which are
/// required or forbidden, how they are decoded, their patterns and types.
///
/// The same description works in Swift (``init(schemes:components:queryItems:allowsOtherQueryItems:dnsHost:)``)
/// and as data in the app's manifest (key `CourierURLFormat`, read by CourierManifest's
/// `URLFormat(propertyList:)`; see docs/url-format.md), so the broker can refuse a malformed URL
/// before launching the app, and the app decodes the same URL into typed values with ``decode(_:)``.
///
/// Components the format does not mention are not checked (beyond RFC 3986).
public struct URLFormat: Sendable, Hashable {
    /// The schemes the format is for (lowercased); empty means any scheme.
    public var schemes: [URIScheme]
    /// Rules by component (`scheme` is governed by ``schemes`` instead).
    public var components: [URIComponent: URLComponentRule]
    /// Rules for the `name=value` pairs of a `key=value&…` query, by decoded name.
    public var queryItems: [String: URLComponentRule]
    /// When false, query items not named in ``queryItems`` are rejected.
    public var allowsOtherQueryItems: Bool
    /// Whether the host is a DNS name: then a host written with characters outside ASCII (an IRI,
    /// `myapp://例え.jp/…`) is converted with IDNA, as for `http`, instead of percent-encoded.
    public var dnsHost: Bool
    /// When true, the broker also sends the app URLs whose decoded components hold control or
    /// bidirectional formatting characters (`%00`, `%0A`, `%1B`, `%E2%80%AE`); by default it
    /// refuses them with `InvalidURL` before launching anything (docs/url-format.md).
    public var allowsControlCharacters: Bool

    public init(
        schemes: [URIScheme] = [], components: [URIComponent: URLComponentRule] = [:],
        queryItems: [String: URLComponentRule] = [:], allowsOtherQueryItems: Bool = true, dnsHost: Bool = false,
        allowsControlCharacters: Bool = false
    ) {
        self.schemes = schemes
        self.components = components
        self.queryItems = queryItems
        self.allowsOtherQueryItems = allowsOtherQueryItems
        self.dnsHost = dnsHost
        self.allowsControlCharacters = allowsControlCharacters
    }

    /// Whether the format is for `uri`'s scheme.
    public func applies(to uri: URIReference) -> Bool {
        guard let scheme = uri.scheme else { return schemes.isEmpty }
        return schemes.isEmpty || schemes.contains { $0.name == scheme }
    }

    /// Checks `uri` against the format.
    /// - Throws: ``URLFormatViolation`` naming the first component that does not fit and why.
    public func validate(_ uri: URIReference) throws(URLFormatViolation) {
        _ = try decode(uri)
    }

    /// Checks `uri` and returns its described components as typed values.
    /// - Throws: ``URLFormatViolation`` naming the first component that does not fit and why.
    public func decode(_ uri: URIReference) throws(URLFormatViolation) -> DecodedURL {
        if !schemes.isEmpty {
            // Spelled only for a refusal: every URL an app decodes passes here.
            var names: String { schemes.map(\.name).joined(separator: ", ") }
            guard let scheme = uri.scheme else {
                throw URLFormatViolation(
                    component: .scheme, offset: nil, reason: "the URL has no scheme", advice: "start it with \(names):")
            }
            guard schemes.contains(where: { $0.name == scheme }) else {
                throw URLFormatViolation(
                    component: .scheme, offset: 0, reason: "the scheme \(scheme) is not one of this format's (\(names))",
                    advice: "use \(names)")
            }
        }
        var values: [URIComponent: URLValue] = [:]
        for component in URIComponent.allCases {
            guard let rule = components[component] else { continue }
            let what = "the \(component.rawValue)"
            let present = Self.presentValue(of: component, in: uri)
            switch (rule.presence, present) {
            case (.required, nil):
                throw URLFormatViolation(
                    component: component, offset: nil, reason: "\(what) is required but absent",
                    advice: Self.howToAdd(component))
            case (.forbidden, .some(let (_, offset))):
                throw URLFormatViolation(
                    component: component, offset: offset, reason: "\(what) is not accepted by this URL format",
                    advice: "remove it")
            case (_, nil):
                continue
            case (_, .some(let (raw, offset))):
                values[component] = try rule.value(of: raw, offset: offset, what: what, component: component, queryItem: nil)
            }
        }
        let items = try decodeQueryItems(uri)
        return DecodedURL(uri: uri, components: values, queryItems: items)
    }

    /// The raw text and offset of a component that counts as present: a non-empty path or host,
    /// any other component whose delimiter is there.
    static func presentValue(of component: URIComponent, in uri: URIReference) -> (Substring, Int)? {
        guard let raw = uri.raw(component), let offset = uri.offset(of: component) else { return nil }
        if (component == .path || component == .host), raw.isEmpty { return nil }
        return (raw, offset)
    }

    static func howToAdd(_ component: URIComponent) -> String {
        switch component {
        case .query: "add it after '?', e.g. todolist://host?Quarterly%20Report"
        case .fragment: "add it after '#'"
        case .host: "add a host after '//'"
        case .port: "add ':' and a port number after the host"
        case .user, .userinfo: "add user@ before the host"
        case .password: "add :password after the user name"
        case .path: "add a path"
        case .scheme: "start the URL with a scheme"
        }
    }

    private func decodeQueryItems(_ uri: URIReference) throws(URLFormatViolation) -> [String: URLValue] {
        if queryItems.isEmpty, allowsOtherQueryItems { return [:] }
        var values: [String: URLValue] = [:]
        var seen: Set<String> = []
        if let raw = uri.rawQueryItems, let query = uri.query, let base = uri.offset(of: .query) {
            for (rawName, rawValue) in raw {
                let nameOffset = base + query.utf8.distance(from: query.startIndex, to: rawName.startIndex)
                let name: String
                do {
                    name = try PercentEncoding.decode(rawName, baseOffset: nameOffset, component: .query)
                } catch {
                    throw URLFormatViolation(
                        component: .query, offset: error.offset,
                        reason: "a query item name cannot be decoded: \(error.message)", advice: error.advice)
                }
                guard let rule = queryItems[name] else {
                    if allowsOtherQueryItems { continue }
                    let known = queryItems.keys.sorted().joined(separator: ", ")
                    throw URLFormatViolation(
                        component: .query, queryItem: name, offset: nameOffset,
                        reason: "the query item '\(name)' is not part of this URL format",
                        advice: known.isEmpty ? "remove it" : "remove it; the known items are \(known)")
                }
                guard seen.insert(name).inserted else {
                    throw URLFormatViolation(
                        component: .query, queryItem: name, offset: nameOffset,
                        reason: "the query item '\(name)' appears more than once", advice: "give it once")
                }
                if rule.presence == .forbidden {
                    throw URLFormatViolation(
                        component: .query, queryItem: name, offset: nameOffset,
                        reason: "the query item '\(name)' is not accepted by this URL format", advice: "remove it")
                }
                let value = rawValue ?? ""
                let valueOffset = base + query.utf8.distance(from: query.startIndex, to: value.startIndex)
                values[name] = try rule.value(
                    of: value, offset: rawValue == nil ? nameOffset : valueOffset,
                    what: "the query item '\(name)'", component: .query, queryItem: name)
            }
        }
        for (name, rule) in queryItems.sorted(by: { $0.key < $1.key }) where rule.presence == .required && !seen.contains(name) {
            throw URLFormatViolation(
                component: .query, queryItem: name, offset: nil,
                reason: "the query item '\(name)' is required but absent",
                advice: "add \(PercentEncoding.encode(name, allowing: .queryItem))=… to the query")
        }
        return values
    }
}

extension URLFormat {
    /// Checks an absolute URI against the format.
    public func validate(_ uri: URI) throws(URLFormatViolation) {
        try validate(uri.reference)
    }

    /// Decodes an absolute URI into the format's typed values.
    public func decode(_ uri: URI) throws(URLFormatViolation) -> DecodedURL {
        try decode(uri.reference)
    }
}
