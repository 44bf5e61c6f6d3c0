/// The pids the bus vouched for (`GetConnectionCredentials`), per caller unique name, valid only
/// while that name is on the bus.
///
/// A pid names a process only while it lives; once a caller disconnects its pid may be reused by
/// another process — possibly an app Courier launched, whose pid identifies it. So a cached pid
/// must never outlive the name it was looked up for (polkit CVE-2021-3560 is the same mistake with
/// uids): `vanished` drops it, and a lookup that was in flight when the name vanished neither
/// caches its answer nor uses it (`finishLookup` returns nil: the caller is "unknown", never
/// identified by a pid that may already belong to someone else).
///
/// Usage: `cached` first; on a miss `beginLookup`, ask the bus, then `finishLookup` with the
/// answer (nil when the lookup failed) and use what it returns.
public struct CallerPIDCache: Sendable {
    private var pids: [String: UInt32] = [:]
    /// Lookups in flight per name, and whether the name vanished during them.
    private var lookups: [String: (count: Int, vanished: Bool)] = [:]

    public init() {}

    /// The pid cached for `name`, if it is still on the bus.
    public func cached(_ name: String) -> UInt32? { pids[name] }

    /// A lookup of `name`'s credentials starts.
    public mutating func beginLookup(_ name: String) {
        lookups[name, default: (0, false)].count += 1
    }

    /// The lookup of `name` ended with `pid` (nil: the bus could not tell). Returns the pid to use:
    /// nil when the lookup failed or `name` left the bus while it ran.
    public mutating func finishLookup(_ name: String, pid: UInt32?) -> UInt32? {
        var vanished = false
        if var lookup = lookups[name] {
            vanished = lookup.vanished
            lookup.count -= 1
            lookups[name] = lookup.count > 0 ? lookup : nil
        }
        guard let pid, !vanished else { return nil }
        pids[name] = pid
        return pid
    }

    /// `name` left the bus (`NameOwnerChanged` with no new owner).
    public mutating func vanished(_ name: String) {
        pids[name] = nil
        if lookups[name] != nil { lookups[name]!.vanished = true }
    }

    /// Names with a cached pid or a lookup in flight (for tests: zero once every caller left).
    public var count: Int { Set(pids.keys).union(lookups.keys).count }
}
