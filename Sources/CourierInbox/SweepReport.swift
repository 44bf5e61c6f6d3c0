/// What `Inbox.sweepLeftovers()` did.
public struct SweepReport: Sendable, Equatable {
    /// Temporary files removed (absolute paths).
    public var removed: [String] = []
    /// Temporary files left because a live drop still holds them.
    public var inUse: [String] = []
    /// Containers or files that could not be swept, with the reason (never fatal).
    public var problems: [String] = []

    public init() {}
}
