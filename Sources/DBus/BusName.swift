// One validated type per kind of D-Bus name (the swift-system habit): the same ValidatedName shape
// over its own libdbus check, so one kind can never be passed for another (deliberate; the shared
// part is the protocol).
/// A D-Bus bus name: a well-known name (`org.courier.Broker`) or a unique name (`:1.42`).
///
/// Validated on construction (see `ValidatedName`).
public struct BusName: ValidatedName {
    /// The validated text, e.g. `org.courier.Broker`.
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.busName(rawValue)
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }
}
