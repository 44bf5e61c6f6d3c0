import Foundation

/// Everything a load run measured and checked; printed as a summary and as `load-result: {json}`.
struct LoadReport: Codable, Sendable {
    var opens: Int
    var clients: Int
    var apps: Int
    var cold: Int
    var inFlight: Int
    var warmupOpens: Int
    var courierd: String
    var brokerLog: String
    var rssToleranceKiB: Int
    var fdTolerance: Int
    var warmupSeconds = 0.0
    var runSeconds = 0.0
    var warmup: DeliveryLedger.Check?
    var run: DeliveryLedger.Check?
    /// The drops of the run (and of the warm-up).
    var drops: [DeliveryLedger.Check] = []
    var dropsPerClient: Int
    var vanishing: Int
    /// Launches per app (index = app).
    var launchCounts: [Int] = []
    var clientErrors: [String: Int] = [:]
    var declined = 0
    var firstClientError: String?
    var baseline: ProcessFootprint?
    var peak: ProcessFootprint?
    var after: ProcessFootprint?
    var brokerExit: String?
    var brokerExitSeconds: Double?
    var sanitizerErrors: [String] = []
    /// The last lines of courierd's log, kept when the run failed.
    var brokerLogTail: [String] = []
    var failures: [String] = []

    init(options: LoadOptions, courierd: String, log: String) {
        opens = options.opens
        clients = options.clients
        apps = options.apps
        cold = options.cold
        inFlight = options.inFlight
        dropsPerClient = options.drops
        vanishing = options.vanishing
        warmupOpens = options.warmup
        self.courierd = courierd
        brokerLog = log
        rssToleranceKiB = options.rssToleranceKiB
        fdTolerance = options.fdTolerance
    }

    /// From the first client's first OpenURL to the last client's last answer (drops excluded).
    var opensSeconds = 0.0
    var opensPerSecond: Double { opensSeconds > 0 ? Double(opens) / opensSeconds : 0 }

    mutating func noteClients(_ summaries: [ClientSummary], round: String) {
        for summary in summaries {
            declined += summary.declined
            for (name, count) in summary.errors { clientErrors[name, default: 0] += count }
            if firstClientError == nil, let error = summary.firstError { firstClientError = "\(round) client \(summary.client): \(error)" }
        }
    }

    /// Every problem found, footprint and sanitizer included.
    var problems: [String] {
        var problems = failures
        if !clientErrors.isEmpty { problems.append("clients got errors \(clientErrors); first: \(firstClientError ?? "?")") }
        if declined > 0 { problems.append("\(declined) requests declined (the recorder app handles every URL)") }
        for check in [warmup, run].compactMap({ $0 }) + drops where !check.passed {
            problems.append("\(check.round): expected \(check.expected), delivered \(check.delivered); lost \(check.lost), duplicated \(check.duplicated), out of order \(check.outOfOrder), misrouted \(check.misrouted), unknown \(check.unknown); e.g. \(check.examples.joined(separator: "; "))")
        }
        if run == nil { problems.append("the run was not checked") }
        if let baseline, let after {
            if after.rssKiB - baseline.rssKiB > rssToleranceKiB {
                problems.append("courierd RSS grew \(after.rssKiB - baseline.rssKiB) KiB (tolerance \(rssToleranceKiB) KiB)")
            }
            if after.fds - baseline.fds > fdTolerance { problems.append("courierd holds \(after.fds - baseline.fds) more fds (tolerance \(fdTolerance))") }
            if after.threads > baseline.threads { problems.append("courierd runs \(after.threads - baseline.threads) more threads") }
        } else {
            problems.append("courierd's footprint was not measured")
        }
        if !sanitizerErrors.isEmpty { problems.append("sanitizer: \(sanitizerErrors.joined(separator: " | ")) (see \(brokerLog))") }
        return problems
    }

    var passed: Bool { problems.isEmpty }

    func print() {
        func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }
        func signed(_ n: Int) -> String { n >= 0 ? "+\(n)" : "\(n)" }
        Swift.print("load: \(opens) OpenURLs from \(clients) client processes over \(apps) apps (\(cold) cold), ≤ \(inFlight) in flight each; courierd \(courierd)")
        if let warmup { Swift.print("  warm-up: \(warmup.expected) opens to the \(apps - cold) warm apps in \(String(format: "%.2f", warmupSeconds)) s") }
        Swift.print("  run: \(opens) opens in \(String(format: "%.2f", opensSeconds)) s = \(Int(opensPerSecond)) opens/s (first send to last answer over all clients, \(cold) cold launches included); the round took \(String(format: "%.2f", runSeconds)) s with client start-up and drops")
        if let run {
            Swift.print("  delivered \(run.delivered)/\(run.expected): lost \(run.lost), duplicated \(run.duplicated), out of order \(run.outOfOrder), misrouted \(run.misrouted); client errors \(clientErrors.values.reduce(0, +))")
        }
        if vanishing > 0, let run {
            Swift.print("  \(vanishing) more clients SIGKILLed mid-run with requests in flight: \(vanishing * 1_000 - run.abandoned) of their requests delivered (each once, in order), \(run.abandoned) never sent or abandoned")
        }
        if let drops = drops.first {
            Swift.print("  drops (\(dropsPerClient) DropFiles per client after its opens): \(drops.delivered)/\(drops.expected) delivered, lost \(drops.lost), duplicated \(drops.duplicated), misrouted \(drops.misrouted); each file checked in its Inbox")
        }
        let once = launchCounts.filter { $0 == 1 }.count
        Swift.print("  launches: \(once) of \(apps) apps launched exactly once (\(cold) cold ones during the run, while \(clients) clients asked for them)")
        if let baseline, let after {
            Swift.print("  courierd after warm-up: \(baseline)")
            if let peak { Swift.print("  courierd at the end of the run (\(apps) apps running): \(peak)") }
            Swift.print("  courierd after the run (cold apps stopped again): RSS \(mib(after.rssKiB)) (\(signed(after.rssKiB - baseline.rssKiB)) KiB, tolerance \(rssToleranceKiB)), \(after.fds) fds (\(signed(after.fds - baseline.fds)), tolerance \(fdTolerance)), \(after.threads) threads")
        }
        if let brokerExit { Swift.print("  courierd after SIGTERM: \(brokerExit) in \(String(format: "%.2f", brokerExitSeconds ?? 0)) s") }
        let problems = problems
        if problems.isEmpty {
            Swift.print("load: PASS")
        } else {
            Swift.print("load: FAIL")
            for problem in problems { Swift.print("  - \(problem)") }
            if !brokerLogTail.isEmpty { Swift.print("  courierd's log (last lines):\n    " + brokerLogTail.joined(separator: "\n    ")) }
        }
        if let json = try? JSONEncoder().encode(self) { Swift.print("load-result: " + String(decoding: json, as: UTF8.self)) }
    }
}
