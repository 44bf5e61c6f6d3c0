import CourierTypes
/// One entry of `CFBundleURLTypes`: the schemes an app claims, with their role and rank.
public struct URLTypeDeclaration: Sendable, Hashable {
    /// `CFBundleURLName`, an abstract name for the URL type (often reverse-DNS).
    public var name: String?
    /// `CFBundleURLSchemes`, validated and lowercased.
    public var schemes: [String]
    /// `CFBundleTypeRole`, `Editor` when absent (Apple's default for URL types).
    public var role: HandlerRole
    /// `LSHandlerRank`, `Default` when absent.
    public var rank: HandlerRank
    /// `CourierAllowedCallers`: who may open URLs of these schemes (default: anyone).
    public var allowedCallers: CallerRule

    public init(name: String? = nil, schemes: [String], role: HandlerRole = .editor, rank: HandlerRank = .default, allowedCallers: CallerRule = .anyone) {
        self.name = name
        self.schemes = schemes
        self.role = role
        self.rank = rank
        self.allowedCallers = allowedCallers
    }
}
