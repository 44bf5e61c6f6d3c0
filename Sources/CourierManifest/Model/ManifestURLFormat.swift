/// The bridge between a manifest's `CourierURLFormat` value and the parser module's format type.
///
/// Until the parser module offers its format type, the raw value is kept and accepted as long as
/// it is a dictionary; ``validate`` is where the full check plugs in.
public enum ManifestURLFormat {
    /// What is wrong with a format: where inside `CourierURLFormat` (empty for the value itself)
    /// and what to do.
    public struct Problem: Sendable, Hashable {
        public var keyPath: String
        public var message: String
        public init(keyPath: String, message: String) {
            self.keyPath = keyPath
            self.message = message
        }
    }

    /// nil when `value` is acceptable, else what is wrong.
    @Sendable public static func validate(_ value: PropertyListValue) -> Problem? {
        guard case .dictionary = value else {
            return Problem(keyPath: "", message: "expected a dictionary describing the URL's components, found a \(value.typeName)")
        }
        return nil
    }
}
