/// A D-Bus signature: a sequence of zero or more complete types, e.g. `sa{sv}`.
///
/// Validated by libdbus's own validator on construction (length ≤ 255, nesting limits, dictionary
/// keys basic, …), so an invalid signature cannot exist. The empty signature is valid (no arguments).
public struct Signature: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature text.
    public let rawValue: String
    /// The complete types, in order.
    public let types: [DBusType]

    /// Validates `rawValue`; throws `DBusValidationError` saying why it is not a valid signature.
    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.signature(rawValue)
        let chars = Array(rawValue.utf8)
        var index = 0
        var types: [DBusType] = []
        while index < chars.count {
            guard let t = DBusType.parse(chars, &index) else {
                throw DBusValidationError(kind: "signature", input: rawValue, reason: "is not a sequence of complete types")
            }
            types.append(t)
        }
        self.rawValue = rawValue
        self.types = types
    }

    /// The signature of these types, validated (total length and nesting).
    public init(_ types: [DBusType]) throws(DBusValidationError) {
        try self.init(types.map(\.signature).joined())
    }

    /// The empty signature (no arguments).
    public static let empty = Signature(trusted: "", types: [])

    init(trusted rawValue: String, types: [DBusType]) {
        self.rawValue = rawValue
        self.types = types
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }

    public static func == (a: Signature, b: Signature) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
}
