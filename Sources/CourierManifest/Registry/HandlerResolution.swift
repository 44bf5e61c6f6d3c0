import CourierTypes
/// The candidates for a scheme or type in decision order, the chosen one first, with explanations.
///
/// Eligible candidates come first, ordered by (1) the user's default, (2) `LSHandlerRank`
/// (Owner > Default > Alternate), for types then (2b) how specific the declared type is, and
/// (3) the persisted first-claim order. Candidates that cannot be chosen (rank None, reserved
/// schemes) follow, so that `--explain` can show them.
public struct HandlerResolution: Sendable, Hashable {
    public var key: HandlerKey
    public var candidates: [HandlerCandidate]
    /// Set when the query itself was refused (invalid scheme, unknown type), with the reason.
    public var problem: String?
    /// The desktop application (desktop file id) the user chose as the default, if any: then no
    /// candidate is chosen and Courier hands the scheme or type to the desktop.
    public var desktopDefault: String? = nil

    /// The handler Courier uses, if any.
    public var chosen: HandlerCandidate? { candidates.first { $0.status == .chosen } }

    /// Eligible bundle identifiers in decision order (what `HandlersForURL` and the dump list).
    public var bundleIdentifiers: [String] { candidates.filter(\.isEligible).map(\.bundleIdentifier) }

    /// Two lines per candidate, for `courier handlers --explain`: where it stands and why, then who
    /// it accepts as a caller (its caller rule, and the key that declares it).
    public var explanationText: String {
        if let problem { return problem }
        let desktop = desktopDefault.map { "the user's default for \(key) is the desktop's \($0): Courier hands it to the desktop\n" } ?? ""
        if candidates.isEmpty { return desktop + "no app claims \(key)" }
        return desktop + candidates.enumerated().map { i, c in
            let declared = c.callers.keyPath.isEmpty ? "no caller rule" : c.callers.keyPath
            return "\(i + 1). \(c.bundleIdentifier) — \(c.explanation)\n   callers: \(c.callers) (\(declared))"
        }.joined(separator: "\n")
    }
}
