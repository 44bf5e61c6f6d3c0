@testable import courier_test_app
import Testing

/// The load run's checker must see each kind of broken promise, or a passing load run proves nothing.
@Suite("Delivery ledger")
struct DeliveryLedgerTests {
    let plan = LoadPlan(round: "run", first: 0, count: 3)
    let opens = [6, 6]

    /// What correct delivery looks like: two clients, six requests each, over three apps.
    var clean: [Int: [Substring]] {
        var deliveries: [Int: [Substring]] = [0: [], 1: [], 2: []]
        for client in 0..<2 {
            for sequence in 0..<6 {
                deliveries[plan.app(client: client, sequence: sequence), default: []].append(Substring(plan.url(client: client, sequence: sequence)))
            }
        }
        return deliveries
    }

    @Test func correctDeliveryPasses() {
        let check = DeliveryLedger(deliveries: clean).check(plan, opens: opens)
        #expect(check.passed && check.delivered == 12)
    }

    @Test func aDuplicateIsCounted() {
        var deliveries = clean
        deliveries[0]!.append(deliveries[0]![0])
        let check = DeliveryLedger(deliveries: deliveries).check(plan, opens: opens)
        #expect(check.duplicated == 1 && !check.passed)
    }

    @Test func aLostRequestIsCounted() {
        var deliveries = clean
        deliveries[1]!.removeLast()
        #expect(DeliveryLedger(deliveries: deliveries).check(plan, opens: opens).lost == 1)
    }

    @Test func aClientsRequestsOutOfOrderAreCounted() {
        var deliveries = clean
        deliveries[2]!.swapAt(0, 1)   // the same client's s=2 and s=5
        #expect(DeliveryLedger(deliveries: deliveries).check(plan, opens: opens).outOfOrder == 1)
    }

    @Test func aRequestAtTheWrongAppIsCounted() {
        var deliveries = clean
        deliveries[1]!.append(deliveries[0]!.removeFirst())
        #expect(DeliveryLedger(deliveries: deliveries).check(plan, opens: opens).misrouted == 1)
    }

    @Test func dropsAreCheckedApartFromURLs() {
        var deliveries = clean
        func url(_ client: Int, _ drop: Int) -> Substring { Substring("file:///c/Documents/Inbox/" + plan.dropName(client: client, drop: drop)) }
        deliveries[plan.app(client: 0, sequence: 0)]!.append(url(0, 0))
        deliveries[plan.app(client: 0, sequence: 1)]!.append(url(0, 1))
        deliveries[plan.app(client: 0, sequence: 1)]!.append(url(0, 1))   // twice
        deliveries[plan.app(client: 1, sequence: 0) == 0 ? 1 : 0]!.append(url(1, 0))   // at the wrong app
        let ledger = DeliveryLedger(deliveries: deliveries)
        #expect(ledger.check(plan, opens: opens).passed)
        let drops = ledger.checkDrops(plan, drops: [2, 2])
        #expect(drops.duplicated == 1)
        #expect(drops.misrouted == 1)
        #expect(drops.lost == 1)   // client 1's drop 1
        #expect(!drops.passed)
    }

    @Test func aKilledClientMayLoseRequestsButNotDuplicateThem() {
        var deliveries = clean
        deliveries[1]!.removeAll { $0.hasSuffix("c=1&s=4") }   // client 1 was killed before s=4 arrived
        let check = DeliveryLedger(deliveries: deliveries).check(plan, opens: opens, mayLose: [1])
        #expect(check.passed && check.abandoned == 1 && check.expected == 6)
        deliveries[0]!.append(deliveries[0]!.first { $0.contains("c=1&") }!)
        #expect(DeliveryLedger(deliveries: deliveries).check(plan, opens: opens, mayLose: [1]).duplicated == 1)
    }

    @Test func otherRoundsAreIgnored() {
        var deliveries = clean
        deliveries[0]!.append("load00://load/warmup?c=0&s=0")
        #expect(DeliveryLedger(deliveries: deliveries).check(plan, opens: opens).passed)
    }
}
