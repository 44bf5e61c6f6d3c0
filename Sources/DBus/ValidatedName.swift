/// What the validated name and path types (`BusName`, `InterfaceName`, `MemberName`, `ErrorName`,
/// `ObjectPath`) share: text checked once, on construction, by libdbus's own validator, so an
/// invalid value cannot exist and can never reach a libdbus call that aborts.
///
/// A conforming type supplies only its throwing initializer; the failable one, string literals
/// (which trap when invalid: a name written in code is a programming error), ordering and
/// `description` come from here.
public protocol ValidatedName: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral
where StringLiteralType == String {
    /// The validated text.
    var rawValue: String { get }

    /// Validates `rawValue`; throws `DBusValidationError` saying why it is not valid for this kind.
    init(_ rawValue: String) throws(DBusValidationError)
}

extension ValidatedName {
    /// Returns nil when `rawValue` is not valid for this kind.
    public init?(validating rawValue: String) {
        guard let value = try? Self(rawValue) else { return nil }
        self = value
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
