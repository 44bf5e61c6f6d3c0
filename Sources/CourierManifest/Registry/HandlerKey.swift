import CourierTypes
/// What a handler is chosen for: a URL scheme (lowercased) or a uniform type identifier.
public enum HandlerKey: Sendable, Hashable, CustomStringConvertible {
    case scheme(String)
    case type(String)

    public var description: String {
        switch self {
        case .scheme(let s): return "scheme '\(s)'"
        case .type(let t): return "type \(t)"
        }
    }
}
