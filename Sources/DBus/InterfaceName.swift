// One validated type per kind of D-Bus name (the swift-system habit): the same ValidatedName shape
// over its own libdbus check, so one kind can never be passed for another (deliberate; the shared
// part is the protocol).
/// A D-Bus interface name such as `org.courier.Broker1`.
///
/// Validated on construction (see `ValidatedName`).
public struct InterfaceName: ValidatedName {
    /// The validated text, e.g. `org.courier.Broker1`.
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.interface(rawValue)
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }
}
