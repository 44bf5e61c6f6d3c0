/// A validated RFC 3986 URI reference: an absolute URI (`todolist://www.acme.com?Task#today`)
/// or a relative reference (`../a?b`).
///
/// The value keeps the input string exactly as given and the byte ranges of its components, so
/// reading a raw component is a slice (no copy, no allocation) and serializing is the identity.
/// Raw components are percent-encoded as in the input; ``decoded(_:plusAsSpace:)`` gives the
/// strict UTF-8 decoded view. Two references are equal when their strings are equal; compare
/// ``normalized()`` values for RFC 3986 §6.2.2 equivalence.
public struct URIReference: Sendable, Hashable, CustomStringConvertible {
    /// The reference exactly as parsed.
    public let string: String
    @usableFromInline let layout: URILayout

    /// Parses `string`, refusing anything RFC 3986 does not allow (no repair).
    /// - Throws: ``URIError`` with the byte offset of the first problem and advice.
    public init(_ string: String, options: URIParsingOptions = .default) throws(URIError) {
        let maximumLength = options.maximumLength
        // The fast path takes valid URIs with a scheme; anything else (and every error) goes
        // through the full parser below.
        if let layout = Self.fastLayout(string, maximumLength: maximumLength) {
            self.string = string
            self.layout = layout
            return
        }
        self = try Self(fullParse: string, options: options)
    }

    /// The full parser's half of ``init(_:options:)``, out of line: kept in the initializer, its
    /// frame and register saves were paid by every fast parse too (callgrind: 116 -> 111
    /// instructions per fast parse in the initializer itself). Also the IRI mapping's parser for
    /// text all ASCII that the fast path declined (it has run already).
    @inline(never)
    package init(fullParse string: String, options: URIParsingOptions) throws(URIError) {
        var failure: URIError? = nil
        let parsed = string.utf8.withContiguousStorageIfAvailable { bytes -> URILayout? in
            do throws(URIError) {
                return try URIParser.parse(bytes, maximumLength: options.maximumLength)
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        guard let parsed, let layout = parsed else {
            // A bridged string without contiguous UTF-8: make a native copy and parse that.
            var native = string
            native.makeContiguousUTF8()
            self = try URIReference(native, options: options)
            return
        }
        self.string = string
        self.layout = layout
    }

    /// The fast path's layout of `string`, or nil. (The string is borrowed: reading its bytes
    /// here costs no retain and release, which the closure inside the initializer did.)
    @usableFromInline @inline(__always)
    static func fastLayout(_ string: borrowing String, maximumLength: Int) -> URILayout? {
        let fast = string.utf8.withContiguousStorageIfAvailable { URIParser.fastParse($0, maximumLength: maximumLength) }
        return fast ?? nil
    }

    /// Parses raw bytes (for example from a file or a fuzzer). Non-ASCII bytes are refused by the
    /// grammar, so a successful parse is always valid text.
    public init(utf8 bytes: UnsafeBufferPointer<UInt8>, options: URIParsingOptions = .default) throws(URIError) {
        if let layout = URIParser.fastParse(bytes, maximumLength: options.maximumLength) {
            self.layout = layout
        } else {
            self.layout = try URIParser.parse(bytes, maximumLength: options.maximumLength)
        }
        self.string = String(decoding: bytes, as: UTF8.self)
    }

    @usableFromInline
    init(string: String, layout: URILayout) {
        self.string = string
        self.layout = layout
    }

    public var description: String { string }

    public static func == (lhs: URIReference, rhs: URIReference) -> Bool { lhs.string == rhs.string }
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }

    // MARK: - Raw components

    /// The component at UTF-8 offsets `start..<end`. Built from the UTF-8 view: the offsets are
    /// ASCII delimiter positions (scalar boundaries by construction), so the `String` subscript's
    /// scalar-alignment checks would be wasted work (~15% of a component read).
    @inlinable @inline(__always)
    func slice(_ start: Int32, _ end: Int32) -> Substring {
        let utf8 = string.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: Int(start))
        let upper = utf8.index(utf8.startIndex, offsetBy: Int(end))
        return Substring(utf8[lower..<upper])
    }

    /// The scheme as written (case preserved), without the colon; nil for a relative reference.
    @inlinable public var rawScheme: Substring? {
        layout.schemeEnd >= 0 ? slice(0, layout.schemeEnd) : nil
    }

    /// The scheme, lowercased (schemes compare case-insensitively); nil for a relative reference.
    ///
    /// Built straight from the UTF-8 bytes (a scheme is ASCII, so lowercasing is `| 0x20` on
    /// `A`…`Z`): about half the cost of `String(Substring)` / `lowercased()`, and schemes are read
    /// on every dispatch.
    public var scheme: String? {
        guard layout.schemeEnd >= 0 else { return nil }
        let count = Int(layout.schemeEnd)
        let hasUppercase = layout.schemeHasUppercase
        let built = string.utf8.withContiguousStorageIfAvailable { bytes -> String in
            let raw = UnsafeBufferPointer(rebasing: bytes[0..<count])
            guard hasUppercase else { return String(decoding: raw, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: count) { out in
                for i in 0..<count {
                    let byte = raw[i]
                    out[i] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                }
                return count
            }
        }
        if let built { return built }
        return hasUppercase ? rawScheme!.lowercased() : String(rawScheme!)
    }

    /// Whether the reference has a scheme (it is a URI, not a relative reference).
    @inlinable public var hasScheme: Bool { layout.schemeEnd >= 0 }

    /// The authority without `//`, or nil when there is no authority (`mailto:x`, `/a`).
    @inlinable public var authority: Substring? {
        layout.authorityStart >= 0 ? slice(layout.authorityStart, layout.pathStart) : nil
    }

    /// The userinfo before `@`, or nil.
    @inlinable public var userinfo: Substring? {
        layout.userinfoEnd >= 0 ? slice(layout.authorityStart, layout.userinfoEnd) : nil
    }

    /// The userinfo up to its first `:`, or nil when there is no userinfo.
    @inlinable public var user: Substring? {
        guard layout.userinfoEnd >= 0 else { return nil }
        return slice(layout.authorityStart, layout.userinfoColon >= 0 ? layout.userinfoColon : layout.userinfoEnd)
    }

    /// The userinfo after its first `:`, or nil when there is none.
    @inlinable public var password: Substring? {
        layout.userinfoColon >= 0 ? slice(layout.userinfoColon + 1, layout.userinfoEnd) : nil
    }

    /// The host as written (IP literals keep their brackets), or nil when there is no authority.
    /// An authority always has a host, possibly empty (`file:///etc`).
    @inlinable public var host: Substring? {
        layout.hostStart >= 0 ? slice(layout.hostStart, layout.hostEnd) : nil
    }

    /// Which kind of host this is, or nil when there is no authority.
    @inlinable public var hostKind: URIHostKind? { layout.hostKind }

    /// The port digits as written (possibly empty: `http://h:/`), or nil when there is no `:`.
    @inlinable public var rawPort: Substring? {
        layout.portStart >= 0 ? slice(layout.portStart, layout.pathStart) : nil
    }

    /// The port number (0…65535), or nil when absent or empty.
    @inlinable public var port: Int? { layout.port >= 0 ? Int(layout.port) : nil }

    /// The path as written (always present, possibly empty).
    @inlinable public var path: Substring { slice(layout.pathStart, layout.pathEnd) }

    /// The query without `?`, or nil when there is no `?`. The empty query (`a?`) is "".
    @inlinable public var query: Substring? {
        layout.queryStart >= 0 ? slice(layout.queryStart, layout.queryEnd) : nil
    }

    /// The fragment without `#`, or nil when there is no `#`.
    @inlinable public var fragment: Substring? {
        layout.fragmentStart >= 0 ? slice(layout.fragmentStart, layout.end) : nil
    }

    /// The raw text of `component`, or nil when absent.
    public func raw(_ component: URIComponent) -> Substring? {
        switch component {
        case .scheme: rawScheme
        case .userinfo: userinfo
        case .user: user
        case .password: password
        case .host: host
        case .port: rawPort
        case .path: path
        case .query: query
        case .fragment: fragment
        }
    }

    /// The UTF-8 byte offset where `component` starts in ``string``, or nil when absent.
    public func offset(of component: URIComponent) -> Int? {
        switch component {
        case .scheme: layout.schemeEnd >= 0 ? 0 : nil
        case .userinfo, .user: layout.userinfoEnd >= 0 ? Int(layout.authorityStart) : nil
        case .password: layout.userinfoColon >= 0 ? Int(layout.userinfoColon) + 1 : nil
        case .host: layout.hostStart >= 0 ? Int(layout.hostStart) : nil
        case .port: layout.portStart >= 0 ? Int(layout.portStart) : nil
        case .path: Int(layout.pathStart)
        case .query: layout.queryStart >= 0 ? Int(layout.queryStart) : nil
        case .fragment: layout.fragmentStart >= 0 ? Int(layout.fragmentStart) : nil
        }
    }

    // MARK: - Decoded views

    /// The percent-decoded text of `component` as strict UTF-8, or nil when absent.
    /// - Parameter plusAsSpace: decode `+` as a space (HTML form encoding); off by default, so `+`
    ///   stays a plus.
    /// - Throws: ``URIError`` with code ``URIError/Code/invalidUTF8`` when the decoded bytes are
    ///   not UTF-8 (the offset is that of the escape that starts the bad sequence).
    public func decoded(_ component: URIComponent, plusAsSpace: Bool = false) throws(URIError) -> String? {
        guard let raw = raw(component), let offset = offset(of: component) else { return nil }
        return try PercentEncoding.decode(raw, plusAsSpace: plusAsSpace, baseOffset: offset, component: component)
    }

    // MARK: - Kinds

    /// Whether this is a relative reference (no scheme).
    public var isRelative: Bool { layout.schemeEnd < 0 }

    /// Whether the path starts with `/`.
    public var hasAbsolutePath: Bool { layout.pathEnd > layout.pathStart && path.utf8.first == UInt8(ascii: "/") }
}
