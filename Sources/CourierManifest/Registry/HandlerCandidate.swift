import CourierTypes
/// One app that claims a scheme or a type, where it stands in the decision, and why.
public struct HandlerCandidate: Sendable, Hashable {
    /// Why a candidate stands where it does.
    public enum Status: String, Sendable, Hashable, Codable {
        /// First in decision order: the handler Courier uses.
        case chosen
        /// Eligible, but another candidate comes first.
        case alternative
        /// `LSHandlerRank` is `None`: listed, never chosen.
        case rankNone
        /// A system scheme the user has not allowed this app to handle.
        case reserved
        /// The user chose a desktop application as the default: Courier hands the scheme or type
        /// to the desktop and chooses none of its apps.
        case desktopDefault
        /// The user took the app out of routing (`courier disable`).
        case disabled
    }

    public var bundleIdentifier: String
    public var status: Status
    /// The strongest rank this app declares for the scheme or type.
    public var rank: HandlerRank
    public var role: HandlerRole
    /// Whether the user chose this app as the default.
    public var isUserDefault: Bool
    /// 1-based position among the claimants (persisted first-claim order).
    public var claimPosition: Int?
    /// For types: the declared content type that matched, and how many conformance steps away
    /// it is from the file's type (0 = exactly that type).
    public var matchedType: String?
    public var distance: Int
    /// Why this candidate won or lost, for people: "chosen: the user's default".
    public var explanation: String
    /// Who this app accepts as a caller for the scheme (`CourierAllowedCallers`) or for files
    /// (`CourierAllowedDropCallers`); the broker refuses the others before launching it.
    public var callers: CallerRule = .anyone

    /// Whether Courier may choose it.
    public var isEligible: Bool { status == .chosen || status == .alternative }
}
