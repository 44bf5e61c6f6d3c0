/// A D-Bus method or signal name such as `OpenURL`.
///
/// Validated on construction (member name rules of the D-Bus specification, checked by libdbus's own
/// validator), so an invalid value cannot exist and can never reach a libdbus call that aborts.
/// String literals are accepted for names written in code; they trap if invalid (a programming error).
public struct MemberName: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The validated text, e.g. `OpenURL`.
    public let rawValue: String

    /// Validates `rawValue`; throws `DBusValidationError` saying why it is not a valid member name.
    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.member(rawValue)
        self.rawValue = rawValue
    }

    /// Returns nil when `rawValue` is not a valid member name.
    public init?(validating rawValue: String) {
        guard (try? NameValidation.member(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
