// One validated type per kind of D-Bus name (the swift-system habit): the same ValidatedName shape
// over its own libdbus check, so one kind can never be passed for another (deliberate; the shared
// part is the protocol).
/// A D-Bus method or signal name such as `OpenURL`.
///
/// Validated on construction (see `ValidatedName`).
public struct MemberName: ValidatedName {
    /// The validated text, e.g. `OpenURL`.
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.member(rawValue)
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }
}
