/// Options of `courier-test-app load` (and a small `--name value` parser shared with `client`).
/// Hand-written rather than ArgumentParser: the test app stays a thin executable with only
/// Courier's own libraries, and these are a handful of integers.
struct LoadOptions: Sendable {
    var opens = 10_000
    var clients = 16
    var apps = 50
    /// How many apps are not running when the run starts (the first `cold` ones).
    var cold = 25
    var inFlight = 32
    /// `DropFiles` (one small text file each) per client in each round, after its OpenURLs.
    var drops = 10
    /// Extra clients in the run, each SIGKILLed mid-way with requests in flight (250, 500, … ms
    /// after it starts); what they had sent may be lost, nothing may be duplicated or reordered.
    var vanishing = 4
    /// Requests of the warm-up round (to the warm apps only, at least clients × warm apps), before
    /// the baseline is measured.
    var warmup = 1_600
    var courierd: String?
    /// Where courierd's stderr goes (kept after the run; ASan/LSan reports land there).
    var brokerLog: String?
    /// Allowed RSS growth from the baseline to after the run, in KiB.
    var rssToleranceKiB = 4_096
    /// Allowed growth of courierd's open descriptors from the baseline to after the run.
    var fdTolerance = 0
    /// Overall bound on the run; past it the driver kills everything and fails.
    var timeoutSeconds = 600

    static let usage = """
        courier-test-app load [--opens N] [--clients C] [--apps A] [--cold K] [--in-flight F] [--warmup W] [--drops D] [--vanishing V]
                              [--courierd PATH] [--broker-log FILE] [--rss-tolerance-kib KIB] [--fd-tolerance N] [--timeout S]
          A private dbus-daemon, a real courierd, A recorder apps (the first K cold), C client processes sending
          N OpenURLs in all (at most F in flight each, default 32), then D DropFiles each (default 10); checks zero
          lost, zero duplicated, per-sender order, every dropped file in the right Inbox with its content, one
          launch per app, and courierd's RSS and fd count after a warm-up round vs after the run; V more clients
          (default 4) are SIGKILLed mid-run with requests in flight
          (cold apps stopped again). courierd is stopped with SIGTERM and must exit 0. Defaults: 10000 opens,
          16 clients, 50 apps, 25 cold, 1600 warm-up opens, RSS tolerance 4096 KiB, fd tolerance 0.
          Prints a summary and `load-result: {json}`; exit 0 pass, 1 fail, 64 usage.
        """

    init(arguments: [String]) throws {
        if arguments.contains("--help") || arguments.contains("-h") { throw LoadError(Self.usage) }
        var parser = try Parser(arguments, usage: Self.usage)
        opens = try parser.int("--opens", default: opens)
        clients = try parser.int("--clients", default: clients)
        apps = try parser.int("--apps", default: apps)
        cold = try parser.int("--cold", default: apps / 2)
        inFlight = try parser.int("--in-flight", default: inFlight)
        drops = try parser.int("--drops", default: drops)
        vanishing = try parser.int("--vanishing", default: vanishing)
        warmup = try parser.int("--warmup", default: warmup)
        courierd = parser.optional("--courierd")
        brokerLog = parser.optional("--broker-log")
        rssToleranceKiB = try parser.int("--rss-tolerance-kib", default: rssToleranceKiB)
        fdTolerance = try parser.int("--fd-tolerance", default: fdTolerance)
        timeoutSeconds = try parser.int("--timeout", default: timeoutSeconds)
        try parser.finish()
        // Every client walks every warm app in the warm-up, so all of them run at the baseline.
        guard cold == apps || warmup >= clients * (apps - cold) else {
            throw LoadError("--warmup \(warmup) is too small: it must be at least clients × warm apps (\(clients * (apps - cold))) so every warm app runs when the baseline is measured")
        }
        guard clients > 0, apps > 0, apps <= 100, (0...apps).contains(cold), opens >= clients, inFlight > 0 else {
            throw LoadError("inconsistent options: need clients > 0, 0 < apps ≤ 100, 0 ≤ cold ≤ apps, opens ≥ clients, in-flight > 0\n\(Self.usage)")
        }
    }

    /// `--name value` pairs, each name at most once; `finish` rejects leftovers.
    struct Parser {
        private var values: [String: String] = [:]
        private let usage: String

        init(_ arguments: [String], usage: String) throws {
            self.usage = usage
            var rest = arguments[...]
            while let name = rest.popFirst() {
                guard name.hasPrefix("--"), let value = rest.popFirst() else {
                    throw LoadError("expected '--option value', got '\(name)'\nusage: \(usage)")
                }
                values[name] = value
            }
        }

        mutating func optional(_ name: String) -> String? { values.removeValue(forKey: name) }

        mutating func string(_ name: String) throws -> String {
            guard let value = values.removeValue(forKey: name) else { throw LoadError("missing \(name)\nusage: \(usage)") }
            return value
        }

        mutating func int(_ name: String, default fallback: Int? = nil) throws -> Int {
            guard let text = values.removeValue(forKey: name) else {
                guard let fallback else { throw LoadError("missing \(name)\nusage: \(usage)") }
                return fallback
            }
            guard let value = Int(text), value >= 0 else { throw LoadError("\(name) takes a non-negative integer, not '\(text)'") }
            return value
        }

        func finish() throws {
            guard values.isEmpty else { throw LoadError("unknown option(s) \(values.keys.sorted().joined(separator: ", "))\nusage: \(usage)") }
        }
    }
}
