/// A validated scheme name: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1),
/// stored lowercased because schemes compare case-insensitively.
///
/// Manifests use it to check the names in `CFBundleURLSchemes`; the broker uses it to key its
/// routing table. Digits, `+`, `-` and `.` are all allowed (`x-callback-url`, `coap+tcp`, `web3`).
public struct URIScheme: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The lowercased name.
    public let name: String

    /// Validates `name` (without a colon) and lowercases it.
    /// - Throws: ``URIError`` with the offset of the first bad character.
    public init(_ name: some StringProtocol) throws(URIError) {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else {
            throw URIError(
                code: .emptyScheme, offset: 0, component: .scheme,
                message: "the scheme name is empty",
                advice: "give a name that starts with a letter, e.g. todolist")
        }
        guard CharacterClass.isAlpha(first) else {
            throw URIError(
                code: .invalidScheme, offset: 0, component: .scheme,
                message: "the scheme \"\(name)\" starts with \(URIError.name(of: first)); a scheme starts with a letter",
                advice: "start it with a letter a–z")
        }
        for (offset, byte) in bytes.enumerated() where CharacterClass.table[Int(byte)] & CharacterClass.scheme == 0 {
            throw URIError(
                code: .invalidScheme, offset: offset, component: .scheme,
                message: "\(URIError.name(of: byte)) at offset \(offset) is not allowed in the scheme \"\(name)\"",
                advice: "use only letters, digits, '+', '-' and '.'" + (byte == UInt8(ascii: ":") ? " (write the name without the colon)" : ""))
        }
        self.name = String(name).lowercased()
    }

    /// Whether `name` is a valid scheme name.
    public static func isValid(_ name: some StringProtocol) -> Bool {
        (try? URIScheme(name)) != nil
    }

    public var description: String { name }
    public static func < (lhs: URIScheme, rhs: URIScheme) -> Bool { lhs.name < rhs.name }
}
