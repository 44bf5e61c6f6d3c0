/// A D-Bus bus name: a well-known name (`org.courier.Broker`) or a unique name (`:1.42`).
///
/// Validated on construction (bus name rules of the D-Bus specification, checked by libdbus's own
/// validator), so an invalid value cannot exist and can never reach a libdbus call that aborts.
/// String literals are accepted for names written in code; they trap if invalid (a programming error).
public struct BusName: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The validated text, e.g. `org.courier.Broker`.
    public let rawValue: String

    /// Validates `rawValue`; throws `DBusValidationError` saying why it is not a valid bus name.
    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.busName(rawValue)
        self.rawValue = rawValue
    }

    /// Returns nil when `rawValue` is not a valid bus name.
    public init?(validating rawValue: String) {
        guard (try? NameValidation.busName(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
