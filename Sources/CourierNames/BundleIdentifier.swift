/// An app's bundle identifier (`com.acme.todolist`, `com.8bit.bitwarden`): the app's identity
/// everywhere a person reads it — manifests, logs, `courier` output, container folders, desktop
/// entries — validated once, here, by the one rule every layer shares.
///
/// The rule: reverse-DNS, at least two elements separated by `.`, each element one or more ASCII
/// letters, digits, `-` or `_` and not starting with `-`; at most ``maximumLength`` bytes; not in
/// a ``reservedNamespaces`` (`org.freedesktop.*`, `org.courier.*`). That is
/// what real apps use (Apple's rule, plus `_`), and every name Courier derives from it is safe: a
/// file name (no `/`, no leading `.` or `-`), a desktop entry id, a bus name, an object path.
///
/// On the bus the app is known by ``busName`` and ``objectPath``, made the way the D-Bus
/// specification says to make a bus name from a reverse-DNS name: `-` becomes `_`, and an element
/// that starts with a digit gets a leading `_` (`com.8bit.bitwarden` → `com._8bit.bitwarden`,
/// `/com/_8bit/bitwarden`; `com.acme.todo-list` → `com.acme.todo_list`). Identifiers that are
/// already bus names without `-` map to themselves. Two identifiers can map to one bus name
/// (`com.acme.a-b`, `com.acme.a_b`): the registry refuses the second app whose mapping collides
/// with one already registered, and nothing else (`Registry`).
///
/// Plain strings and no dependencies, so that every layer links it, the static `courier` front
/// included; the D-Bus layers wrap ``busName`` and ``objectPath`` in their own validated types.
public struct BundleIdentifier: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The identifier as written in the manifest.
    public let rawValue: String
    /// The well-known bus name the app owns (`com._8bit.bitwarden`).
    public let busName: String

    /// At most 239 bytes, so that the longest name Courier makes from an identifier,
    /// `courier-<id>.desktop`, still fits a file name (255 bytes); a bus name of at most 255 bytes
    /// is checked as well.
    public static let maximumLength = 239

    /// Validates `rawValue`; the error says what is wrong and what to write instead.
    public init(_ rawValue: String) throws(InvalidBundleIdentifier) {
        if let reason = Self.problem(in: rawValue) { throw InvalidBundleIdentifier(identifier: rawValue, reason: reason) }
        self.rawValue = rawValue
        self.busName = Self.busName(mapping: rawValue)
        guard busName.utf8.count <= 255 else {
            throw InvalidBundleIdentifier(identifier: rawValue, reason: "its D-Bus name \(busName) is longer than 255 bytes")
        }
    }

    /// `nil` when `rawValue` is not a valid identifier.
    public init?(validating rawValue: String) {
        guard let identifier = try? BundleIdentifier(rawValue) else { return nil }
        self = identifier
    }

    /// The object path the app serves its interfaces at: ``busName`` with `.` → `/`
    /// (`/com/_8bit/bitwarden`; the freedesktop rule, and GApplication's).
    public var objectPath: String {
        var path = "/"
        for byte in busName.utf8 { path.unicodeScalars.append(Unicode.Scalar(byte == UInt8(ascii: ".") ? UInt8(ascii: "/") : byte)) }
        return path
    }

    public var description: String { rawValue }

    public static func < (lhs: BundleIdentifier, rhs: BundleIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { try self.init(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// What is wrong with `s`, or nil when it is a valid identifier.
    private static func problem(in s: String) -> String? {
        let bytes = Array(s.utf8)
        guard !bytes.isEmpty else { return "it is empty" }
        guard bytes.count <= maximumLength else { return "it is longer than \(maximumLength) bytes" }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return "it has only one element; use reverse-DNS with at least two, such as com.example.app" }
        for element in elements {
            guard let first = element.first else { return "it has an empty element (a leading, trailing or doubled '.')" }
            guard element.allSatisfy(isElementByte) else {
                return "an element has a character other than ASCII letters, digits, '-' and '_'"
            }
            guard first != UInt8(ascii: "-") else { return "an element starts with '-'" }
        }
        if let namespace = reservedNamespace(of: elements) {
            return "\(namespace).* is reserved for the bus and for Courier itself (\(namespace == "org.courier" ? "org.courier.Broker, org.courier.BrokerLink1" : "org.freedesktop.DBus, org.freedesktop.Notifications"), …), not an app's name"
        }
        return nil
    }

    /// The namespaces no app may take: a bundle id is also the bus name the app owns, and these
    /// name the bus itself, desktop services and Courier's own services — an app under such a name
    /// would stand where a client expects the broker or the bus.
    public static let reservedNamespaces = ["org.freedesktop", "org.courier"]

    /// The reserved namespace `elements` fall in (compared without case: `Org.Courier.Broker` only
    /// differs from the broker's name in case), or nil. `elements` are ASCII (checked before), so
    /// lowering ASCII letters is the whole case folding; bytes, not `lowercased().joined(separator:)`,
    /// whose unspecialized generic code looks its associated types up at run time — a search of
    /// every protocol-conformance record on an app's start-up (docs/PERFORMANCE.md, "Cold open").
    private static func reservedNamespace(of elements: [ArraySlice<UInt8>]) -> String? {
        var head: [UInt8] = []
        for element in elements.prefix(2) {
            if !head.isEmpty { head.append(UInt8(ascii: ".")) }
            for byte in element { head.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        }
        return reservedNamespaces.first { $0.utf8.elementsEqual(head) }
    }

    private static func isElementByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// The D-Bus specification's mapping of a reverse-DNS name to a bus name.
    private static func busName(mapping s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        var atElementStart = true
        for byte in s.utf8 {
            if atElementStart, byte >= 0x30, byte <= 0x39 { out.append(UInt8(ascii: "_")) }
            out.append(byte == UInt8(ascii: "-") ? UInt8(ascii: "_") : byte)
            atElementStart = byte == UInt8(ascii: ".")
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A string that is not a valid ``BundleIdentifier``; `description` says why and what to do.
public struct InvalidBundleIdentifier: Error, Hashable, Sendable, CustomStringConvertible {
    /// The refused text.
    public let identifier: String
    /// What is wrong with it.
    public let reason: String

    public var description: String {
        "'\(identifier)' is not a valid bundle identifier: \(reason); use reverse-DNS such as com.example.app (elements of ASCII letters, digits, '-' or '_', none starting with '-')"
    }
}
