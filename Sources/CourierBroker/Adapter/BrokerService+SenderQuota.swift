import DBus

/// The per-caller flood limit (`SenderQuota`) applied to the methods a client may call in bulk.
///
/// The slot is taken synchronously, before the handler's first suspension (so the ordered
/// `OpenURL` intake is not disturbed), and given back when the handler returns or throws — when
/// the request is answered. A refusal is answered at once with `org.courier.Error.LimitsExceeded`;
/// the first refusal of a burst is logged, not every one.
extension BrokerService {
    /// Runs `body` holding one of `call`'s sender's slots, or throws `LimitsExceeded` as a D-Bus error.
    func withSenderSlot<T: Sendable>(_ call: MethodCall, method: String, _ body: () async throws -> T) async throws -> T {
        let sender = call.sender?.rawValue ?? ""
        let admission = senderQuota.withLock { quota -> Result<SenderQuota.Ticket, BrokerError> in
            do throws(BrokerError) {
                return .success(try quota.admit(sender, method: method))
            } catch {
                if quota.rejected(of: sender) == 1 { logger.notice("\(error.message)") }
                return .failure(error)
            }
        }
        let ticket: SenderQuota.Ticket
        switch admission {
        case .success(let admitted): ticket = admitted
        case .failure(let error): throw error.dbusError
        }
        defer { senderQuota.withLock { $0.release(ticket) } }
        return try await body()
    }

    /// What the flood limit currently tracks (for tests and diagnostics): callers with requests in
    /// flight, and callers with a cached pid or a credentials lookup under way.
    var trackedCallers: (quota: Int, pids: Int) {
        (senderQuota.withLock { $0.trackedSenders }, callerPIDs.withLock { $0.count })
    }
}
