import CourierBroker
import Testing

/// A pid is an identity only while its bus name is connected: the cache never outlives the name.
@Suite struct CallerPIDCacheTests {
    @Test func aSuccessfulLookupIsCachedUntilTheNameLeaves() {
        var cache = CallerPIDCache()
        cache.beginLookup(":1.5")
        #expect(cache.finishLookup(":1.5", pid: 4242) == 4242)
        #expect(cache.cached(":1.5") == 4242)
        cache.vanished(":1.5")
        #expect(cache.cached(":1.5") == nil)
        #expect(cache.count == 0)
    }

    @Test func aFailedLookupIsUnknownAndNotCached() {
        var cache = CallerPIDCache()
        cache.beginLookup(":1.6")
        #expect(cache.finishLookup(":1.6", pid: nil) == nil)
        #expect(cache.cached(":1.6") == nil)
        #expect(cache.count == 0)
    }

    @Test func aNameThatLeavesDuringItsLookupGetsNoPidAndLeavesNoStaleEntry() {
        var cache = CallerPIDCache()
        cache.beginLookup(":1.8")
        cache.vanished(":1.8")        // NameOwnerChanged handled before the credentials answer
        #expect(cache.finishLookup(":1.8", pid: 777) == nil)
        #expect(cache.cached(":1.8") == nil)
        #expect(cache.count == 0)
    }

    @Test func concurrentLookupsOfOneNameAllSeeItsDeparture() {
        var cache = CallerPIDCache()
        cache.beginLookup(":1.2")
        cache.beginLookup(":1.2")
        #expect(cache.finishLookup(":1.2", pid: 10) == 10)
        cache.vanished(":1.2")
        #expect(cache.finishLookup(":1.2", pid: 10) == nil)
        #expect(cache.count == 0)
    }

    @Test func otherNamesAreUnaffected() {
        var cache = CallerPIDCache()
        cache.beginLookup(":1.1")
        _ = cache.finishLookup(":1.1", pid: 1)
        cache.beginLookup(":1.3")
        cache.vanished(":1.1")
        #expect(cache.finishLookup(":1.3", pid: 3) == 3)
        #expect(cache.cached(":1.3") == 3)
    }
}
