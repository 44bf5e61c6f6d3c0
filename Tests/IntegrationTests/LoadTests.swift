import BusTestSupport
import CourierProcess
import Foundation
import Testing

/// The broker's load run (`courier-test-app load`, docs/broker.md "Load and leaks"), full size:
/// a real courierd on a private dbus-daemon, 16 client processes sending 10,000 OpenURLs (then 10
/// DropFiles each) over 50 recorder apps, half of them cold, while 4 more clients are SIGKILLed with
/// requests in flight (what they sent may be lost; nothing twice, nothing out of order). About 15 s
/// in a debug build.
@Suite("Load", .serialized)
struct LoadTests {
    /// The fields of `load-result: {json}` this test checks (the driver prints more).
    struct Result: Decodable {
        struct Check: Decodable {
            var expected: Int
            var delivered: Int
            var lost: Int
            var duplicated: Int
            var outOfOrder: Int
            var misrouted: Int
            var unknown: Int
        }
        struct Footprint: Decodable {
            var rssKiB: Int
            var fds: Int
            var threads: Int
        }
        var run: Check?
        var warmup: Check?
        /// The drops of the run, then of the warm-up.
        var drops: [Check]
        var launchCounts: [Int]
        var clientErrors: [String: Int]
        var declined: Int
        var baseline: Footprint?
        var after: Footprint?
        var brokerExit: String?
        var failures: [String]
    }

    @Test func tenThousandOpensFromSixteenClientsArriveOnceInOrderWithOneLaunchPerApp() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("courier-load-\(UUID().uuidString.prefix(8)).txt").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let argv = [Products.path("courier-test-app"), "load", "--opens", "10000", "--clients", "16", "--apps", "50", "--cold", "25", "--drops", "10", "--vanishing", "4", "--timeout", "300"]
        let driver = try Spawner.start(path: argv[0], arguments: argv, standardOutput: .file(output), standardError: .standardOutput)
        // The driver bounds itself at 300 s.
        let termination = await driver.wait(timeout: .seconds(330))
        if termination == nil { driver.kill() }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(termination == .exited(0), "courier-test-app load failed (\(termination.map { "\($0)" } ?? "still running after 330 s")):\n\(text)")
        let line = text.split(separator: "\n").first { $0.hasPrefix("load-result: ") }
        let json = try #require(line.map { Data($0.dropFirst("load-result: ".count).utf8) }, "no load-result line:\n\(text)")
        let result = try JSONDecoder().decode(Result.self, from: json)
        let run = try #require(result.run)
        #expect(run.expected == 10_000)
        #expect(run.delivered == 10_000)
        #expect(run.lost == 0)
        #expect(run.duplicated == 0)
        #expect(run.outOfOrder == 0)
        #expect(run.misrouted == 0 && run.unknown == 0)
        #expect(result.warmup.map { $0.lost == 0 && $0.duplicated == 0 && $0.outOfOrder == 0 } == true)
        #expect(result.drops.count == 2 && result.drops.allSatisfy { $0.expected == 160 && $0.delivered == 160 && $0.lost == 0 && $0.duplicated == 0 && $0.misrouted == 0 },
                "drops: \(result.drops.map { "\($0.delivered)/\($0.expected), lost \($0.lost), duplicated \($0.duplicated)" })")
        #expect(result.launchCounts == Array(repeating: 1, count: 50), "launches per app: \(result.launchCounts)")
        #expect(result.clientErrors.isEmpty && result.declined == 0, "client errors: \(result.clientErrors)")
        let baseline = try #require(result.baseline)
        let after = try #require(result.after)
        #expect(after.fds <= baseline.fds, "courierd fds \(baseline.fds) → \(after.fds)")
        #expect(after.rssKiB - baseline.rssKiB <= 4096, "courierd RSS \(baseline.rssKiB) → \(after.rssKiB) KiB")
        #expect(after.threads <= baseline.threads)
        #expect(result.brokerExit == "exit status 0", "courierd after SIGTERM: \(result.brokerExit ?? "still running")")
        #expect(result.failures.isEmpty, "\(result.failures)")
    }
}
