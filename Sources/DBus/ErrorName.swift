// One validated type per kind of D-Bus name (the swift-system habit): the same ValidatedName shape
// over its own libdbus check, so one kind can never be passed for another (deliberate; the shared
// part is the protocol).
/// A D-Bus error name such as `org.courier.Error.NoHandler`.
///
/// Validated on construction (see `ValidatedName`).
public struct ErrorName: ValidatedName {
    /// The validated text, e.g. `org.courier.Error.NoHandler`.
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.errorName(rawValue)
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }
}
