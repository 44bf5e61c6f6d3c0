/// Limits applied while parsing.
public struct URIParsingOptions: Sendable, Hashable {
    /// Inputs longer than this many UTF-8 bytes are refused with ``URIError/Code/tooLong``
    /// instead of being parsed (default 64 KiB, at most `Int32.max`).
    public var maximumLength: Int

    @inlinable
    public init(maximumLength: Int = 64 * 1024) {
        self.maximumLength = min(max(0, maximumLength), Int(Int32.max))
    }

    /// 64 KiB. (Computed, so the default argument of every parse costs no lazy-global check.)
    @inlinable public static var `default`: URIParsingOptions { URIParsingOptions() }
}
