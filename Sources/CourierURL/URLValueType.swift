/// What a component of an app's URL holds once decoded.
public enum URLValueType: Sendable, Hashable {
    /// Any text (after the rule's length, blank and pattern checks).
    case text
    /// A decimal integer (optional sign), within the bounds when given.
    case integer(minimum: Int? = nil, maximum: Int? = nil)
    /// A fixed-width date and time in local wall-clock time, e.g. `yyyyMMddHHmm`.
    case dateTime(DateTimePattern)
}

/// A decoded, validated value of an app's URL.
public enum URLValue: Sendable, Hashable, CustomStringConvertible {
    case text(String)
    case integer(Int)
    case dateTime(LocalDateTime)
    /// One of the rule's keywords (such as `today`), matched exactly.
    case keyword(String)

    public var description: String {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        case .dateTime(let date): date.description
        case .keyword(let word): word
        }
    }
}
