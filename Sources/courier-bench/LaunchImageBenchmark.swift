import CourierTools
import CourierBroker
import BusTestSupport
import DBus
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `courier-bench launch-images [--runs N] [--slow-ms N]`: whether a launch image delays a launch
/// (docs/manifest.md, "Launch images"; target: within 2 %). Two private buses, each with an
/// in-process broker and the same todolist manifest and `Default-todolist.png`; launch images are
/// on in one broker (with a notification server, `TestNotificationServer`, on its bus) and off in
/// the other. Cold opens alternate between the two, pair by pair, for a todolist that checks in at
/// once (no image is shown) and for one started through `sh -c 'sleep …; exec todolist'`, slow
/// enough that the image is shown. Reported per case: the medians, their 10th–90th percentile
/// spread, and the median of the pairs' ratios (on / off). A control case first runs the fast
/// start with images off on both sides: its spread is the machine's noise.
enum LaunchImageBenchmark {
    static func run(arguments: [String]) async throws {
        var runs = 20, slowMS = 300
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--slow-ms": slowMS = Int(iterator.next() ?? "") ?? slowMS
            default: print("usage: courier-bench launch-images [--runs N] [--slow-ms N]"); return
            }
        }
        let todolist = Products.folder.appendingPathComponent("todolist").path
        guard FileManager.default.isExecutableFile(atPath: todolist) else {
            print("launch-images: \(todolist) is not built; run `swift build -c release --product todolist`")
            return
        }
        print("launch-images benchmark: cold opens of todolist, launch images on against off, \(runs) pairs per case")
        let slow = ["/bin/sh", "-c", "sleep \(Double(slowMS) / 1000); exec \"$0\"", todolist]
        // The control: both sides without images, to show how far apart two identical sides are.
        for (name, arguments, images) in [("control: fast start, images off on both sides", [todolist], false),
                                          ("fast start (no image shown)", [todolist], true),
                                          ("slow start, \(slowMS) ms (image shown)", slow, true)] {
            let on = try await Side(images: images, arguments: arguments)
            let off = try await Side(images: false, arguments: arguments)
            defer { on.stop(); off.stop() }
            var withImages: [Duration] = [], without: [Duration] = [], ratios: [Double] = []
            for i in 0...runs {
                // Alternate which goes first, so neither side always meets a warmer cache.
                let (a, b) = i % 2 == 0 ? (on, off) : (off, on)
                let first = try await a.coldOpen(i), second = try await b.coldOpen(i)
                guard i > 0 else { continue }   // the first pair pays for page-cache misses
                let (timeOn, timeOff) = a === on ? (first, second) : (second, first)
                withImages.append(timeOn)
                without.append(timeOff)
                ratios.append(timeOn.seconds / timeOff.seconds)
            }
            ratios.sort()
            let shown = on.notifications?.notifications.count ?? 0
            let onStats = Stats(withImages), offStats = Stats(without)
            print("  \(name): \(shown) image(s) shown")
            print("    \(images ? "images on " : "side A    ")  p50 \(onStats.p50.milli)  (p10 \(onStats.percentile(0.1).milli) – p90 \(onStats.percentile(0.9).milli))")
            print("    \(images ? "images off" : "side B    ")  p50 \(offStats.p50.milli)  (p10 \(offStats.percentile(0.1).milli) – p90 \(offStats.percentile(0.9).milli))")
            print(String(format: "    \(images ? "on / off" : "A / B"), median of pairs: %.3f (p10 %.3f – p90 %.3f); target within 2%%", ratios[ratios.count / 2], ratios[ratios.count / 10], ratios[ratios.count * 9 / 10]))
        }
    }

    /// One bus, one broker, one todolist manifest with its launch image.
    final class Side: Sendable {
        let bus: PrivateBus
        let service: BrokerService
        let client: BrokerToolClient
        let notifications: TestNotificationServer?

        init(images: Bool, arguments: [String]) async throws {
            bus = try PrivateBus()
            let manifests = bus.directory.appendingPathComponent("manifests")
            try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
            try BenchManifest.write("com.acme.todolist", schemes: ["todolist"], arguments: arguments, to: manifests)
            try Data(SampleContent.png).write(to: manifests.appendingPathComponent("Default-todolist.png"))
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = bus.directory.appendingPathComponent("data").path
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            notifications = images ? try await TestNotificationServer(environment: environment, folder: bus.directory) : nil
            var logger = Logger(label: "courier-bench")
            logger.logLevel = .error
            service = BrokerService(
                connection: try DBusConnection(address: bus.address), catalog: ManifestCatalog(folders: [manifests.path], logger: logger),
                busAddress: bus.address, launcher: ProcessLauncher(environment: environment, busAddress: bus.address), logger: logger,
                launchImages: images ? LaunchImageSettings(folder: bus.directory.appendingPathComponent("launch-images").path) : nil)
            try await service.start()
            client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        }

        /// One cold open, timed from the client; then the app is stopped and gone.
        func coldOpen(_ i: Int) async throws -> Duration {
            let clock = ContinuousClock()
            let start = clock.now
            _ = try await client.open("todolist://www.acme.com?Launch%20\(i)")
            let time = clock.now - start
            if let pid = service.dispatcher.state(of: "com.acme.todolist").pid {
                kill(pid, SIGTERM)
                for _ in 0..<2500 {
                    if case .notRunning = service.dispatcher.state(of: "com.acme.todolist") { break }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            return time
        }

        func stop() {
            if let pid = service.dispatcher.state(of: "com.acme.todolist").pid { kill(pid, SIGKILL) }
            service.stop()
            service.connection.close()
            client.connection.close()
            notifications?.stop()
            bus.stop()
        }
    }
}
