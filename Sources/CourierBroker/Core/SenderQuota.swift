public import CourierNames

/// How many requests each caller may have in flight at once: the broker's defence against one
/// client flooding it (`OpenURL`, `DropFiles`, `CanOpenURL`, `HandlersForURL`).
///
/// A caller is one bus connection (its unique name). Each request takes a slot when it arrives
/// (`admit`) and gives it back when it is answered, however it ends (`release`). Beyond `limit`
/// slots the request is answered at once with `LimitsExceeded`: it never reaches the dispatcher,
/// so a flooding client fills neither an app's queue nor the broker's memory, and other clients'
/// requests are served as before. A caller that leaves the bus is forgotten (`forget`).
///
/// Releases are tied to the admission they undo (`Ticket`): a late release for a caller that was
/// forgotten meanwhile is ignored instead of freeing a slot of a later entry.
///
/// A plain value: the adapter keeps one in a `Mutex`; tests drive it without a bus.
public struct SenderQuota: Sendable {
    /// The limit courierd uses unless `--max-requests-per-sender` says otherwise. Well above what a
    /// well-behaved pipelining client keeps in flight (Courier's own clients wait for each answer).
    public static let defaultLimit = 64

    /// Drops that do not wait (`wait` false) whose apps have not answered yet, per caller, for each
    /// call it may have in flight (4096 with the default limit: sixteen nearby sessions of the
    /// Inbox's 256 files). Counted apart from the calls in flight, so that an app slow to answer
    /// does not stop a caller's next drops (the nearby receiver drops each file of a session on its
    /// own, and its sender hears success once each file is in the Inbox), while a caller that never
    /// waits still cannot pile up opens without bound.
    public static let unansweredDropsPerCall = 64

    /// One admitted request: hand it back to `release` when the request is answered.
    public struct Ticket: Sendable, Hashable {
        public let sender: String
        fileprivate let entry: UInt64
    }

    private struct Entry {
        var id: UInt64
        var inFlight: Int
        var rejected: Int
    }

    /// Requests one sender may have in flight; at least 1.
    public let limit: Int
    private var entries: [String: Entry] = [:]
    private var nextEntry: UInt64 = 1

    public init(limit: Int = SenderQuota.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Takes a slot for one request from `sender`, or throws `LimitsExceeded` (saying the limit, how
    /// many are in flight and what to do) when `sender` already has `limit` requests in flight.
    public mutating func admit(_ sender: String, method: String = "request") throws(CourierError) -> Ticket {
        var entry = entries[sender] ?? Entry(id: nextEntry, inFlight: 0, rejected: 0)
        if entry.id == nextEntry { nextEntry += 1 }
        guard entry.inFlight < limit else {
            entry.rejected += 1
            entries[sender] = entry
            throw CourierError(
                .limitsExceeded,
                "\(method) refused: \(sender) already has \(entry.inFlight) requests in flight, the limit per client connection (courierd --max-requests-per-sender \(limit)); wait for some answers before sending more"
            )
        }
        entry.inFlight += 1
        entries[sender] = entry
        return Ticket(sender: sender, entry: entry.id)
    }

    /// Gives back the slot `ticket` took. Ignored when the sender was forgotten since.
    public mutating func release(_ ticket: Ticket) {
        guard var entry = entries[ticket.sender], entry.id == ticket.entry else { return }
        entry.inFlight -= 1
        if entry.inFlight <= 0 {
            entries[ticket.sender] = nil
        } else {
            entries[ticket.sender] = entry
        }
    }

    /// `sender` left the bus: drop what is known about it.
    public mutating func forget(_ sender: String) {
        entries[sender] = nil
    }

    /// Requests `sender` has in flight now.
    public func inFlight(of sender: String) -> Int { entries[sender]?.inFlight ?? 0 }

    /// Requests refused to `sender` since its current burst began (1 right after the first refusal:
    /// the adapter logs that one, not every refusal of a flood).
    public func rejected(of sender: String) -> Int { entries[sender]?.rejected ?? 0 }

    /// Senders with requests in flight (or refused in their current burst).
    public var trackedSenders: Int { entries.count }
}
