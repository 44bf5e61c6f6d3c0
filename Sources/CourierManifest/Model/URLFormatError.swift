import CourierURL

/// Why a property-list URL format (the manifest's `CourierURLFormat`) cannot be used: the key
/// path inside the format, what is wrong, and what to do.
///
/// `description` reads like `Components.fragment.Type: "datetime" is not a type; use text,
/// integer or date`. The manifest loader prefixes the key path with `CourierURLFormat.`.
public struct URLFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key path inside the format, e.g. `Components.fragment.Format` or `Schemes[1]`;
    /// empty for the format itself.
    public let keyPath: String
    /// What is wrong.
    public let message: String
    /// What to do.
    public let advice: String

    /// What is wrong and what to do, without the key path.
    public var explanation: String { withAdvice(message, advice) }

    public var description: String { keyPath.isEmpty ? explanation : "\(keyPath): \(explanation)" }
}
