import CourierBroker
import CourierNames
import Testing

/// The per-caller flood limit, without a bus.
@Suite struct SenderQuotaTests {
    @Test func admitsUpToTheLimitThenRefusesWithLimitsExceeded() throws {
        var quota = SenderQuota(limit: 3)
        for _ in 0..<3 { _ = try quota.admit(":1.7") }
        #expect(quota.inFlight(of: ":1.7") == 3)
        let error = #expect(throws: CourierError.self) { try quota.admit(":1.7", method: "OpenURL") }
        #expect(error?.code == .limitsExceeded)
        #expect(error?.dbusName == "org.courier.Error.LimitsExceeded")
        // The message says what was refused, the limit, how many are in flight and what to do.
        let message = error?.message ?? ""
        #expect(message.contains("OpenURL") && message.contains(":1.7"))
        #expect(message.contains("3 requests in flight") && message.contains("--max-requests-per-sender 3"))
        #expect(message.contains("wait for some answers"))
        #expect(quota.inFlight(of: ":1.7") == 3)
        #expect(quota.rejected(of: ":1.7") == 1)
    }

    @Test func oneFloodingSenderDoesNotLimitAnother() throws {
        var quota = SenderQuota(limit: 2)
        _ = try quota.admit(":1.1")
        _ = try quota.admit(":1.1")
        #expect(throws: CourierError.self) { try quota.admit(":1.1") }
        let other = try quota.admit(":1.2")
        #expect(other.sender == ":1.2")
        #expect(quota.inFlight(of: ":1.2") == 1)
    }

    @Test func answeringARequestFreesItsSlot() throws {
        var quota = SenderQuota(limit: 1)
        let first = try quota.admit(":1.4")
        #expect(throws: CourierError.self) { try quota.admit(":1.4") }
        quota.release(first)
        #expect(quota.inFlight(of: ":1.4") == 0)
        #expect(quota.trackedSenders == 0)
        _ = try quota.admit(":1.4")
    }

    @Test func aSenderThatLeftIsForgottenAndItsLateReleasesAreIgnored() throws {
        var quota = SenderQuota(limit: 2)
        let old = try quota.admit(":1.9")
        _ = try quota.admit(":1.9")
        quota.forget(":1.9")
        #expect(quota.trackedSenders == 0)
        // A message of the same connection handled after its NameOwnerChanged starts a new entry;
        // releases of requests admitted before the forget must not free its slots.
        let late = try quota.admit(":1.9")
        quota.release(old)
        quota.release(old)
        #expect(quota.inFlight(of: ":1.9") == 1)
        quota.release(late)
        #expect(quota.trackedSenders == 0)
    }

    @Test func aLimitBelowOneMeansOne() throws {
        var quota = SenderQuota(limit: 0)
        #expect(quota.limit == 1)
        _ = try quota.admit(":1.3")
        #expect(throws: CourierError.self) { try quota.admit(":1.3") }
    }

    @Test func theDefaultLeavesRoomForPipeliningClients() {
        // Load clients keep up to 32 requests in flight; they must never be refused by default.
        #expect(SenderQuota.defaultLimit >= 32)
        #expect(SenderQuota().limit == SenderQuota.defaultLimit)
    }
}
