import BusTestSupport
import CourierTools
import CourierBroker
import CourierNames
import CourierProcess
import DBus
import Foundation
import Glibc
import Logging
import Synchronization

/// `courier-bench lifecycle [--runs N] [--apps N] [--rounds N]` (release): what termination and
/// restoration cost (docs/lifecycle.md).
///
/// 1. OpenURL → a relaunched todolist that restores its preserved state and handles the URL,
///    against a cold launch with no archive, interleaved in the same run: the whole OpenURL, and
///    the part restoration sits in (CheckIn → the launch URL answered). Target: restoration adds
///    < 2 ms at p50.
/// 2. courierd's resident memory while N apps (the todolist under N bundle ids) cycle through
///    launch → terminate with notice → relaunch: flat means no record, timer or task is left behind.
/// 3. SIGTERM → exit of a courierd serving a 5,000-scheme manifest with its desktop entries on,
///    against the same daemon with them off, interleaved: exit does not wait for the desktop sync.
///    Target: < 2 s.
enum LifecycleBenchmark {
    struct Options {
        var runs = 30
        var apps = 200
        var rounds = 3

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
                    throw BenchmarkFailure("\(argument) needs a positive number; courier-bench lifecycle [--runs N] [--apps N] [--rounds N]")
                }
                switch argument {
                case "--runs": runs = value
                case "--apps": apps = value
                case "--rounds": rounds = value
                default: throw BenchmarkFailure("unknown option '\(argument)'; courier-bench lifecycle [--runs N] [--apps N] [--rounds N]")
                }
            }
        }
    }

    static func run(arguments: [String]) async throws {
        let options = try Options(arguments)
        let bin = Products.folder
        let todolist = bin.appendingPathComponent("todolist").path
        guard FileManager.default.isExecutableFile(atPath: todolist) else {
            throw BenchmarkFailure("\(todolist) is not built; run `swift build -c release --product todolist`")
        }
        let bus = try PrivateBus()
        defer { bus.stop() }
        print("lifecycle benchmark: private dbus-daemon at \(bus.address); binaries in \(bin.path)")
        try await restoredVersusCold(bus: bus, todolist: todolist, runs: options.runs)
        try await cycling(bus: bus, bin: bin, apps: options.apps, rounds: options.rounds)
        try await exitTime(bus: bus, bin: bin, runs: 3)
    }

    // MARK: 3

    static func exitTime(bus: PrivateBus, bin: URL, runs: Int) async throws {
        let courierd = bin.appendingPathComponent("courierd").path
        guard FileManager.default.isExecutableFile(atPath: courierd) else { return }
        let root = bus.directory.appendingPathComponent("lifecycle-exit")
        let folder = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write("org.example.many", schemes: (0..<5000).map { String(format: "many%04d", $0) }, arguments: ["/bin/true"], to: folder)
        var times: (desktop: [Duration], bare: [Duration]) = ([], [])
        for run in 0..<(2 * runs) {
            let desktop = run % 2 == 0
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            for (key, folder) in [("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state")] {
                environment[key] = root.appendingPathComponent("\(folder)-\(run)").path
            }
            environment["COURIER_DESKTOP_ENTRIES"] = desktop ? "1" : "0"
            let (process, client) = try await BrokerBenchmark.startCourierd(courierd, ["--manifests", folder.path, "--log-level", "error"], environment: environment, bus: bus)
            client.connection.close()
            let signalled = ContinuousClock.now
            kill(process.pid, SIGTERM)
            _ = process.wait()
            let elapsed = ContinuousClock.now - signalled
            if desktop { times.desktop.append(elapsed) } else { times.bare.append(elapsed) }
        }
        let (desktop, bare) = (Stats(times.desktop), Stats(times.bare))
        print("")
        print("3. courierd SIGTERM → exit with a 5,000-scheme manifest (\(runs) + \(runs) runs, interleaved; target < 2 s)")
        print("   desktop entries on  p50 \(desktop.p50.milli)  (min \(desktop.percentile(0).milli), max \(desktop.percentile(1).milli))")
        print("   desktop entries off p50 \(bare.p50.milli)  (min \(bare.percentile(0).milli), max \(bare.percentile(1).milli)); ratio \(String(format: "%.2f", desktop.p50.seconds / max(bare.p50.seconds, 1e-9)))")
    }

    // MARK: 1

    static func restoredVersusCold(bus: PrivateBus, todolist: String, runs: Int) async throws {
        let root = bus.directory.appendingPathComponent("lifecycle-restore")
        let folder = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write("com.acme.todolist", schemes: ["todolist"], arguments: [todolist], to: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        let layout = CourierLayout(environment: environment)
        let archive = layout.savedStateArchive(for: try BundleIdentifier("com.acme.todolist"))
        let marks = Mutex<(checkIn: ContinuousClock.Instant?, delivered: ContinuousClock.Instant?, gone: Bool)>((nil, nil, false))
        var logger = Logger(label: "courier-bench")
        logger.logLevel = .error
        let service = BrokerService(
            connection: try DBusConnection(address: bus.address), catalog: ManifestCatalog(folders: [folder.path], logger: logger),
            busAddress: bus.address, launcher: ProcessLauncher(environment: environment, busAddress: bus.address),
            configuration: .init(savedState: SavedStateStore(layout: layout)), logger: logger,
            observer: { event in
                switch event {
                case .checkedIn: marks.withLock { $0.checkIn = ContinuousClock.now }
                case .delivered: marks.withLock { $0.delivered = $0.delivered ?? ContinuousClock.now }
                case .stateChanged(_, .notRunning): marks.withLock { $0.gone = true }
                default: break
                }
            }
        )
        try await service.start()
        defer { service.stop(); service.connection.close() }
        let client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        defer { client.connection.close() }
        // The apps inherit standard output: keep their lines out of the report while they run.
        fflush(nil)
        let savedOutput = dup(STDOUT_FILENO)
        let devNull = open("/dev/null", O_WRONLY)
        dup2(devNull, STDOUT_FILENO)
        close(devNull)
        defer {
            dup2(savedOutput, STDOUT_FILENO)
            close(savedOutput)
        }
        let clock = ContinuousClock()
        var totals: (cold: [Duration], restored: [Duration]) = ([], [])
        var launches: (cold: [Duration], restored: [Duration]) = ([], [])
        var reads: [Duration] = []
        var restoredCount = 0
        for run in 0..<(runs * 2 + 2) {
            let restore = run % 2 == 1
            // Stop the app with notice (it preserves its session) and wait until it is gone.
            marks.withLock { $0.gone = false }
            if (try? service.dispatcher.terminate(bundleID: "com.acme.todolist", reason: "benchmark")) != nil {
                for _ in 0..<5000 where !marks.withLock({ $0.gone }) { try await Task.sleep(for: .milliseconds(1)) }
            }
            if !restore { unlink(archive) }
            let t0 = clock.now
            _ = SavedStateStore(layout: layout).read("com.acme.todolist")
            if restore { reads.append(clock.now - t0) }
            marks.withLock { $0 = (nil, nil, false) }
            let start = clock.now
            let result = try await client.open("todolist://www.acme.com?Run%20\(run)#today")
            let total = clock.now - start
            guard result.handled, let (checkIn, delivered) = marks.withLock({ m in m.checkIn.flatMap { c in m.delivered.map { (c, $0) } } }) else {
                throw BenchmarkFailure("run \(run): the todolist did not launch and handle its URL")
            }
            if restore && result.reply["last-shown"] != nil { restoredCount += 1 }
            if run < 2 { continue }   // the first pair pays for page-cache misses
            if restore {
                totals.restored.append(total)
                launches.restored.append(delivered - checkIn)
            } else {
                totals.cold.append(total)
                launches.cold.append(delivered - checkIn)
            }
        }
        fflush(nil)
        dup2(savedOutput, STDOUT_FILENO)
        let (coldTotal, restoredTotal) = (Stats(totals.cold), Stats(totals.restored))
        let (coldLaunch, restoredLaunch) = (Stats(launches.cold), Stats(launches.restored))
        print("")
        print("1. OpenURL → relaunched todolist, restored vs cold (\(totals.cold.count) + \(totals.restored.count) launches, interleaved; \(restoredCount) restored runs showed the preserved task)")
        print("   whole OpenURL       cold p50 \(coldTotal.p50.milli)  restored p50 \(restoredTotal.p50.milli)  ratio \(String(format: "%.3f", restoredTotal.p50.seconds / coldTotal.p50.seconds))")
        print("   CheckIn → answered  cold p50 \(coldLaunch.p50.milli)  restored p50 \(restoredLaunch.p50.milli)  ratio \(String(format: "%.3f", restoredLaunch.p50.seconds / coldLaunch.p50.seconds))")
        // Each restored launch against the cold one just before it: the machine's drift cancels.
        let paired = Stats(zip(launches.cold, launches.restored).map { $1 - $0 })
        print("   restoration adds    p50 \(paired.p50.milli) after CheckIn, paired run by run (target < 2 ms); difference of the p50s \((restoredLaunch.p50 - coldLaunch.p50).milli); the broker's archive read p50 \(Stats(reads).p50.micro)")
    }

    // MARK: 2

    static func cycling(bus: PrivateBus, bin: URL, apps: Int, rounds: Int) async throws {
        let courierd = bin.appendingPathComponent("courierd").path
        guard FileManager.default.isExecutableFile(atPath: courierd) else {
            print("\n2. cycling: skipped (\(courierd) not built; run `swift build -c release --product courierd`)")
            return
        }
        let root = bus.directory.appendingPathComponent("lifecycle-cycle")
        let folder = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let todolist = bin.appendingPathComponent("todolist").path
        for i in 0..<apps {
            try BenchManifest.write(String(format: "org.example.cycle%03d", i), schemes: [String(format: "cycle%03d", i)], arguments: [todolist], to: folder)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        let (process, client) = try await BrokerBenchmark.startCourierd(courierd, ["--manifests", folder.path, "--log-level", "error", "--no-desktop-entries"], environment: environment, bus: bus)
        defer { process.stop(); client.connection.close() }
        let changes = try await client.stateChanges()
        let gone = Mutex<Set<String>>([])
        let follower = Task {
            for await change in changes where change.state == "not-running" { _ = gone.withLock { $0.insert(change.bundleID) } }
        }
        defer { follower.cancel() }
        var samples: [Int] = [BrokerBenchmark.residentKiB(of: process.pid)]
        let clock = ContinuousClock()
        let start = clock.now
        let batch = 10
        for _ in 0..<rounds {
            for first in stride(from: 0, to: apps, by: batch) {
                let ids = (first..<min(apps, first + batch)).map { String(format: "org.example.cycle%03d", $0) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for id in ids {
                        group.addTask { _ = try await client.open("cycle\(id.suffix(3))://x") }
                    }
                    try await group.waitForAll()
                }
                gone.withLock { $0.subtract(ids) }
                for id in ids { try await client.terminate(bundleID: id) }
                for _ in 0..<10000 where !gone.withLock({ $0.isSuperset(of: ids) }) { try await Task.sleep(for: .milliseconds(1)) }
            }
            samples.append(BrokerBenchmark.residentKiB(of: process.pid))
        }
        let elapsed = clock.now - start
        print("")
        print("2. courierd RSS while \(apps) apps cycle launch → terminate with notice → relaunch (\(rounds) rounds, \(apps * rounds) launches, \(String(format: "%.1f", elapsed.seconds)) s)")
        print("   RSS after each round: \(samples.map { String(format: "%.1f", Double($0) / 1024) }.joined(separator: " → ")) MiB (at start, then per round)")
        if samples.count > 2 {
            print("   last round / first round: \(String(format: "%.3f", Double(samples.last ?? 0) / Double(samples[1]))) (flat ≈ 1.0)")
        }
    }
}
