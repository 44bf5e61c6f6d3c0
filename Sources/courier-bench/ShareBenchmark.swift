import CourierBroker
import CourierProtocol
import BusTestSupport
import DBus
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench share [--apps N] [--files N] [--runs N]`: the share sheet's listing at the
/// broker (docs/share.md): `Broker1.ShareActivities` for `--files` (10) text files across
/// `--apps` (1,000) registered apps — each with a document type, every tenth with a share
/// activity of its own — through an in-process broker on a private dbus-daemon, device discovery
/// not included. Target: under 10 ms.
///
/// Baseline in the same run, interleaved call for call: `Broker1.CanOpenURL`, the broker's
/// cheapest round trip, so the ratio is the listing's own cost over the bus's. Reported: the
/// median and the 10th–90th percentile spread of each, and the median ratio of the pairs.
enum ShareBenchmark {
    static func run(arguments: [String]) async throws {
        var apps = 1_000, files = 10, runs = 200
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--apps": apps = Int(iterator.next() ?? "") ?? apps
            case "--files": files = Int(iterator.next() ?? "") ?? files
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            default: print("usage: courier-bench share [--apps N] [--files N] [--runs N]"); return
            }
        }
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("courier-bench-share-\(getpid())")
        let manifests = work.appendingPathComponent("manifests"), items = work.appendingPathComponent("items")
        for folder in [manifests, items] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: work) }
        let types = ["public.plain-text", "public.png", "com.adobe.pdf", "public.json"]
        for index in 0..<apps {
            let bundleID = "org.example.share\(index)"
            var plist: [String: Any] = [
                "CFBundleIdentifier": bundleID, "CFBundleName": "Share \(index)",
                "CFBundleDocumentTypes": [["CFBundleTypeName": "Documents", "LSItemContentTypes": [types[index % types.count]]]],
            ]
            if index % 10 == 0 {
                plist["CourierShareActivities"] = [["CourierActivityName": "add", "CourierActivityTitle": "Add to Share \(index)",
                                                    "CourierActivityContentTypes": ["public.plain-text"]]]
            }
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: manifests.appendingPathComponent("\(bundleID).plist"))
        }
        let paths = (0..<files).map { items.appendingPathComponent("note-\($0).txt").path }
        for path in paths { try Data("Buy milk, eggs and bread \(path)\n".utf8).write(to: URL(fileURLWithPath: path)) }

        let bus = try PrivateBus()
        defer { bus.stop() }
        let service = try await BrokerBenchmark.startBroker(bus: bus, folders: [manifests.path])
        defer { service.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }
        let rows = DBusValue.array(.structure([.string, .string, .string]), paths.map { .structure([.string("file"), .string(($0 as NSString).lastPathComponent), .string("")]) })
        let options = DBusValue.vardict([String: DBusValue](CourierKey.clipboard(false), CourierKey.nearby(true)))

        func list() async throws -> (Duration, Int) {
            let descriptors = paths.map { UnixFD(taking: open($0, O_RDONLY | O_CLOEXEC)) }
            defer { descriptors.forEach { $0.close() } }
            let clock = ContinuousClock()
            let start = clock.now
            let reply = try await Broker1.call(Broker1.shareActivities, on: connection, [rows, .fds(descriptors), options])
            return (clock.now - start, reply.first?.arrayValue?.count ?? 0)
        }
        func ping() async throws -> Duration {
            let clock = ContinuousClock()
            let start = clock.now
            _ = try await Broker1.call(Broker1.canOpenURL, on: connection, [.string("nothing-registered:x")])
            return clock.now - start
        }
        let (_, offered) = try await list()   // warm-up, and the answer's size
        _ = try await ping()
        var listings: [Duration] = [], pings: [Duration] = [], ratios: [Double] = []
        for _ in 0..<runs {
            let baseline = try await ping()
            let (listing, _) = try await list()
            pings.append(baseline)
            listings.append(listing)
            ratios.append(listing.seconds / max(baseline.seconds, 1e-9))
        }
        let listed = Stats(listings), pinged = Stats(pings)
        ratios.sort()
        print("share benchmark: \(files) text files, \(apps) apps, \(offered) activities offered, \(runs) interleaved pairs")
        print("  ShareActivities   p50 \(listed.p50.milli)  (p10 \(listed.percentile(0.1).milli) – p90 \(listed.percentile(0.9).milli))  target < 10 ms")
        print("  CanOpenURL        p50 \(pinged.p50.milli)  (p10 \(pinged.percentile(0.1).milli) – p90 \(pinged.percentile(0.9).milli))  baseline")
        print(String(format: "  ratio listing / baseline, median of pairs: %.1f× (p10 %.1f× – p90 %.1f×)", ratios[ratios.count / 2], ratios[ratios.count / 10], ratios[ratios.count * 9 / 10]))
    }
}
