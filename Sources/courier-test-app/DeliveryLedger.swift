/// Checks one round of a load run against what the apps recorded (`RecorderApp`): every request
/// delivered exactly once, to the app the plan routes it to, and each client's requests to an app
/// in the order the client sent them.
struct DeliveryLedger: Sendable {
    /// App index → the URLs its deliveries file holds, in delivery order.
    let deliveries: [Int: [Substring]]

    /// The verdict of one round.
    struct Check: Codable, Sendable {
        var round: String
        var expected = 0
        var delivered = 0
        var lost = 0
        var duplicated = 0
        /// A client's request delivered to an app after a later-sent request of the same client.
        var outOfOrder = 0
        /// Delivered to an app other than the scheme's owner.
        var misrouted = 0
        /// Records of this round that name no request of it (bad client or sequence number).
        var unknown = 0
        /// Requests of clients killed mid-run (`mayLose`) that never arrived: allowed, not `lost`.
        var abandoned = 0
        /// A few examples of each problem, for the report.
        var examples: [String] = []

        var passed: Bool { lost == 0 && duplicated == 0 && outOfOrder == 0 && misrouted == 0 && unknown == 0 && delivered == expected }
    }

    /// - Parameters:
    ///   - opens: requests each client sent (or meant to send) in this round (index = client id).
    ///   - mayLose: clients killed mid-run: their requests may be missing (each delivered one is
    ///     still checked: once, in order, at the right app) and do not count in `expected`.
    func check(_ plan: LoadPlan, opens: [Int], mayLose: Set<Int> = []) -> Check {
        var check = Check(round: plan.round, expected: opens.enumerated().filter { !mayLose.contains($0.offset) }.map(\.element).reduce(0, +))
        var seen = opens.map { [UInt8](repeating: 0, count: $0) }
        func note(_ text: String) { if check.examples.count < 8 { check.examples.append(text) } }
        for (app, urls) in deliveries.sorted(by: { $0.key < $1.key }) {
            var last: [Int: Int] = [:]
            for url in urls where !url.hasPrefix("file:") {   // file URLs are drops: checkDrops
                guard let record = LoadPlan.parse(url) else {
                    check.unknown += 1
                    note("app \(app): unparsable record '\(url)'")
                    continue
                }
                guard record.round == plan.round else { continue }
                let (client, sequence) = (record.client, record.sequence)
                if !mayLose.contains(client) { check.delivered += 1 }
                guard client < opens.count, sequence < opens[client] else {
                    check.unknown += 1
                    note("app \(app): '\(url)' is no request of this round")
                    continue
                }
                if plan.app(client: client, sequence: sequence) != app || record.scheme != LoadPlan.scheme(app) {
                    check.misrouted += 1
                    note("app \(app) received '\(url)'")
                }
                seen[client][sequence] &+= 1
                if seen[client][sequence] == 2 {
                    check.duplicated += 1
                    note("client \(client) request \(sequence) delivered twice")
                }
                if let previous = last[client], sequence <= previous {
                    check.outOfOrder += 1
                    note("app \(app): client \(client) request \(sequence) after \(previous)")
                }
                last[client] = sequence
            }
        }
        for (client, counts) in seen.enumerated() {
            for (sequence, count) in counts.enumerated() where count == 0 {
                if mayLose.contains(client) {
                    check.abandoned += 1
                } else {
                    check.lost += 1
                    note("client \(client) request \(sequence) never delivered")
                }
            }
        }
        return check
    }

    /// Checks the round's drops: each file URL delivered exactly once, to the app the plan gives.
    /// - Parameter drops: drops each client sent in this round (index = client id).
    func checkDrops(_ plan: LoadPlan, drops: [Int]) -> Check {
        var check = Check(round: plan.round + " drops", expected: drops.reduce(0, +))
        var seen = drops.map { [UInt8](repeating: 0, count: $0) }
        func note(_ text: String) { if check.examples.count < 8 { check.examples.append(text) } }
        for (app, urls) in deliveries.sorted(by: { $0.key < $1.key }) {
            for url in urls where url.hasPrefix("file:") {
                guard let record = LoadPlan.parseDrop(url) else {
                    check.unknown += 1
                    note("app \(app): unexpected file URL '\(url)'")
                    continue
                }
                guard record.round == plan.round else { continue }
                check.delivered += 1
                guard record.client < drops.count, record.drop < drops[record.client] else {
                    check.unknown += 1
                    note("app \(app): '\(url)' is no drop of this round")
                    continue
                }
                if plan.app(client: record.client, sequence: record.drop) != app {
                    check.misrouted += 1
                    note("app \(app) received '\(url)'")
                }
                seen[record.client][record.drop] &+= 1
                if seen[record.client][record.drop] == 2 {
                    check.duplicated += 1
                    note("client \(record.client) drop \(record.drop) delivered twice")
                }
            }
        }
        for (client, counts) in seen.enumerated() {
            for (drop, count) in counts.enumerated() where count == 0 {
                check.lost += 1
                note("client \(client) drop \(drop) never delivered")
            }
        }
        return check
    }
}
