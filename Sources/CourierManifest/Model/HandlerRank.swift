import CourierTypes
/// `LSHandlerRank`: how strongly an app claims a scheme or a document type.
///
/// The registry prefers `owner` over `default` over `alternate`; `none` is listed but never chosen.
/// An absent rank means `default`, as on Apple platforms.
public enum HandlerRank: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case owner = "Owner"
    case `default` = "Default"
    case alternate = "Alternate"
    case none = "None"

    /// Higher wins.
    var strength: Int {
        switch self {
        case .owner: return 3
        case .default: return 2
        case .alternate: return 1
        case .none: return 0
        }
    }

    /// Ordered by strength: `none < alternate < default < owner`.
    public static func < (lhs: HandlerRank, rhs: HandlerRank) -> Bool { lhs.strength < rhs.strength }
}
