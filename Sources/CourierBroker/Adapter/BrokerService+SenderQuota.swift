import CourierNames
import DBus
import CourierProtocol
import Synchronization

/// The per-caller flood limit (`SenderQuota`) applied to the methods a client may call in bulk.
///
/// The slot is taken synchronously, before the handler's first suspension (so the ordered
/// `OpenURL` intake is not disturbed), and given back when the handler returns or throws — when
/// the request is answered. A refusal is answered at once with `org.courier.Error.LimitsExceeded`;
/// the first refusal of a burst is logged, not every one.
extension BrokerService {
    /// Runs `body` holding one of `call`'s sender's slots, or throws `LimitsExceeded` as a D-Bus error.
    func withSenderSlot<T: Sendable>(_ call: MethodCall, method: String, _ body: () async throws -> T) async throws -> T {
        let ticket: SenderQuota.Ticket
        do throws(CourierError) { ticket = try takeSenderSlot(call, method: method) } catch { throw error.dbusError }
        defer { giveBack(ticket) }
        return try await body()
    }

    /// One of `call`'s sender's slots, to `giveBack` when the call is answered; or `LimitsExceeded`.
    /// `unanswered`: a slot among the drops that did not wait (`unansweredDrops`), not the calls in flight.
    func takeSenderSlot(_ call: MethodCall, method: String, unanswered: Bool = false) throws(CourierError) -> SenderQuota.Ticket {
        let sender = call.sender?.rawValue ?? ""
        let logger = logger
        func admit(_ quota: inout SenderQuota) throws(CourierError) -> SenderQuota.Ticket {
            do throws(CourierError) {
                return try quota.admit(sender, method: method)
            } catch {
                if quota.rejected(of: sender) == 1 { logger.notice("\(error.message)") }
                throw error
            }
        }
        if unanswered { return try unansweredDrops.withLock { quota throws(CourierError) in try admit(&quota) } }
        return try senderQuota.withLock { quota throws(CourierError) in try admit(&quota) }
    }

    func giveBack(_ ticket: SenderQuota.Ticket, unanswered: Bool = false) {
        if unanswered { unansweredDrops.withLock { $0.release(ticket) } } else { senderQuota.withLock { $0.release(ticket) } }
    }

    /// What the flood limit currently tracks (for tests and diagnostics): callers with requests in
    /// flight, and callers with a cached pid or a credentials lookup under way.
    var trackedCallers: (quota: Int, pids: Int) {
        (senderQuota.withLock { $0.trackedSenders }, callerPIDs.withLock { $0.count })
    }
}
