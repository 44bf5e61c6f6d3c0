import BusTestSupport
import Courier
import CourierTools
import CourierBroker
import CourierProcess
import DBus
import Foundation
import Glibc
import Logging
import Synchronization

/// `swift run -c release courier-bench broker`: the broker's costs, each against a baseline measured
/// in the same run on the same private dbus-daemon.
///
/// 1. Warm `OpenURL` round trip (client → broker → app → broker → client, app in process, already
///    checked in) vs a bare ping (client → echo service → client): p50 ratio, target ≤ 2.3.
///    The app attaches its direct link (docs/broker.md), as every app on the Courier library does.
///    Then again with the broker logging every open as courierd does at its default level (info,
///    swift-log's stream handler; the lines go to /dev/null), and with `--no-direct-links` (every
///    delivery through the bus, as for an app not built on the library).
/// 2. Sustained opens/s with 8 concurrent clients to one warm app.
/// 3. Cold `OpenURL` of the todolist example: total (target ≤ 8 ms at p50), the app's own
///    spawn-to-CheckIn, and the broker's overhead above it (target ≤ 5 ms at p50).
/// 4. `courier open` as a whole process vs `gio open` and `xdg-open` to a desktop-entry handler.
///    It times the `courier` built next to courier-bench, which is what users run: the front (one
///    libdbus call, linked fully static by Package.swift in every build, so `swift build` and
///    scripts/install make the same binary). `--courier PATH` times another build instead (the
///    sibling is then timed too, for comparison). `--only process` runs section 4 alone.
/// 5. Broker RSS idle with 1,000 registered apps (a real `courierd` process), target ≤ 30 MiB.
enum BrokerBenchmark {
    static func run(arguments: [String]) async throws {
        // (run with `stdbuf -oL` to see results as they come through a pipe)
        let bin = Products.folder
        let options = try Options(arguments)
        let bus = try PrivateBus()
        defer { bus.stop() }
        print("broker benchmark: private dbus-daemon at \(bus.address); binaries in \(bin.path)")
        if options.only == nil || options.only == "warm" || options.only == "open" {
            try await warmAndThroughput(bus: bus, calls: options.calls, throughput: options.only != "open")
            if options.only != "open" {
                try await discardingStandardError {
                    try await warmAndThroughput(bus: bus, calls: options.calls, throughput: false, broker: .logging)
                }
                try await warmAndThroughput(bus: bus, calls: options.calls, throughput: false, broker: .busOnly)
            }
            if options.only != nil { return }
        }
        if options.only == nil || options.only == "cold" {
            try await cold(bus: bus, bin: bin)
            if options.only == "cold" { return }
        }
        try await wholeProcess(bus: bus, bin: bin, courier: options.courier)
        if options.only == nil {
            try await idleMemory(bus: bus, bin: bin)
        }
    }

    /// `--courier PATH` (the binary section 4 times), `--only process` (section 4 alone), `--only warm`
    /// (sections 1 and 2, to attach `perf` to), `--only open` (section 1 alone: run it under
    /// callgrind with two `--calls` and take the difference), `--only cold` (section 3) and
    /// `--calls N` (section 1's timed calls, 3000).
    struct Options {
        var courier: String?
        var only: String?
        var calls = 3000

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--courier":
                    guard let path = rest.popFirst() else { throw BenchUsageError("--courier needs the path of a courier executable") }
                    courier = URL(fileURLWithPath: path).path
                case "--only":
                    guard let section = rest.popFirst(), ["process", "warm", "open", "cold"].contains(section) else {
                        throw BenchUsageError("--only takes 'process' (section 4: courier open as a whole process), 'warm' (sections 1 and 2), 'open' (section 1, for callgrind) or 'cold' (section 3: cold OpenURL of todolist)")
                    }
                    only = section
                case "--calls":
                    guard let count = rest.popFirst().flatMap({ Int($0) }), count > 0 else { throw BenchUsageError("--calls needs a positive number of timed warm OpenURLs") }
                    calls = count
                default:
                    throw BenchUsageError("unknown option '\(argument)'; courier-bench broker [--courier PATH] [--only process|warm|cold] [--calls N]")
                }
            }
        }
    }

    /// `--rounds N` (a positive count), the one option of the payload and startup modes.
    static func rounds(_ arguments: [String], default value: Int, usage: String) throws -> Int {
        guard !arguments.isEmpty else { return value }
        guard arguments.count == 2, arguments[0] == "--rounds", let n = Int(arguments[1]), n > 1 else { throw BenchUsageError(usage) }
        return n
    }

    struct BenchUsageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: 1 + 2

    struct EchoDelegate: ApplicationDelegate {
        func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool { true }
    }

    /// How the broker of a warm round trip runs.
    enum WarmBroker: String {
        /// As deployed, quiet: a Courier app's deliveries go over its direct link.
        case deployed = "warm-manifests"
        /// Logging each open at info through swift-log's stream handler on standard error, as
        /// `courierd` does by default (run it inside `discardingStandardError`).
        case logging = "warm-manifests-logging"
        /// `courierd --no-direct-links`: every delivery through the bus.
        case busOnly = "warm-manifests-bus-only"

        var heading: String {
            switch self {
            case .deployed: "1. warm round trip"
            case .logging: "1b. the same, the broker logging each open as courierd does (info, to /dev/null)"
            case .busOnly: "1c. the same with courierd --no-direct-links: every delivery through the bus"
            }
        }

        var route: String {
            self == .busOnly ? "two bus round trips make the floor 2" : "one bus round trip and one over the app's direct link"
        }
    }

    static func warmAndThroughput(bus: PrivateBus, calls: Int, throughput: Bool = true, broker: WarmBroker = .deployed) async throws {
        let loggingAsCourierd = broker == .logging
        let folder = bus.directory.appendingPathComponent(broker.rawValue)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write("org.example.bench.echo", schemes: ["bench"], arguments: BenchManifest.inProcessApp, to: folder)
        // When the broker starts and ends the delivery to the app: splits an OpenURL in three.
        let marks = Mutex<(delivering: ContinuousClock.Instant?, delivered: ContinuousClock.Instant?)>((nil, nil))
        let service = try await startBroker(bus: bus, folders: [folder.path], logger: loggingAsCourierd ? courierdLogger() : nil, directLinks: broker != .busOnly) { event in
            switch event {
            case .delivering: marks.withLock { $0.delivering = ContinuousClock.now }
            case .delivered: marks.withLock { $0.delivered = ContinuousClock.now }
            default: break
            }
        }
        defer { service.stop(); service.connection.close() }
        let app = try Application.onBus(bus, bundleID: "org.example.bench.echo", delegate: EchoDelegate())
        try await app.start()
        defer { app.stop() }
        if broker != .busOnly {   // the app attaches its link just after it checked in
            for _ in 0..<500 where service.directlyLinked.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            guard !service.directlyLinked.isEmpty else { throw BenchmarkFailure("the app attached no direct link to the broker within 5 s") }
        }

        // The baseline: an echo method on its own connection.
        let echo = try DBusConnection(address: bus.address)
        defer { echo.close() }
        try echo.export([DBusInterface("org.courier.Bench", methods: [
            DBusMethod("Ping", arguments: "s", results: "s") { call in [call.arguments[0]] },
        ])], at: "/org/courier/Bench")
        guard let echoName = echo.uniqueName else { return }

        let client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        defer { client.connection.close() }
        let url = "bench://www.acme.com?warm"
        for _ in 0..<300 {   // warm-up: caches, identity lookup, allocator
            _ = try await client.open(url)
            _ = try await client.connection.call(echoName, path: "/org/courier/Bench", interface: "org.courier.Bench", method: "Ping", [.string(url)])
        }
        var ping: [Duration] = []
        var open: [Duration] = []
        var (inbound, delivery, outbound): ([Duration], [Duration], [Duration]) = ([], [], [])
        let clock = ContinuousClock()
        for _ in 0..<calls {   // interleaved, so both see the same machine load
            let t0 = clock.now
            _ = try await client.connection.call(echoName, path: "/org/courier/Bench", interface: "org.courier.Bench", method: "Ping", [.string(url)])
            let t1 = clock.now
            _ = try await client.open(url)
            let t2 = clock.now
            ping.append(t1 - t0)
            open.append(t2 - t1)
            if let (d0, d1) = marks.withLock({ m in m.delivering.flatMap { a in m.delivered.map { (a, $0) } } }) {
                inbound.append(d0 - t1)
                delivery.append(d1 - d0)
                outbound.append(t2 - d1)
            }
        }
        let pingStats = Stats(ping)
        let openStats = Stats(open)
        print("")
        print(broker == .deployed ? "\(broker.heading) (\(calls) interleaved calls)" : broker.heading)
        print("   bare ping           p50 \(pingStats.p50.micro)  p99 \(pingStats.p99.micro)")
        print("   OpenURL via broker  p50 \(openStats.p50.micro)  p99 \(openStats.p99.micro)")
        print("   ratio p50 OpenURL / ping = \(String(format: "%.2f", openStats.p50.seconds / pingStats.p50.seconds)) (target ≤ 2.3; \(broker.route))")
        print("   OpenURL p50s: client → broker's delivery starts \(Stats(inbound).p50.micro); broker → app → broker \(Stats(delivery).p50.micro); → client \(Stats(outbound).p50.micro)")
        if broker != .deployed { return }
        let check = receiverCheckCost(catalog: ManifestCatalog(folders: [folder.path], logger: Logger(label: "courier-bench")))
        print("   receiver check before each delivery, app not launched by the broker: \(String(format: "%.2f", check.handle)) µs = \(String(format: "%.2f", check.handle / openStats.p50.seconds / 1e4)) % of the OpenURL p50 (fstatat of exe in the /proc/PID held since CheckIn; by path, /proc/PID/exe: \(String(format: "%.2f", check.path)) µs)")

        guard throughput else { return }
        // 2. Eight concurrent clients, each sequential.
        let clients = try (0..<8).map { _ in BrokerToolClient(connection: try DBusConnection(address: bus.address)) }
        defer { clients.forEach { $0.connection.close() } }
        for c in clients { _ = try await c.open(url) }
        let perClient = 1500
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for c in clients {
                group.addTask { for _ in 0..<perClient { _ = try await c.open(url) } }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let opens = Double(clients.count * perClient)
        print("")
        print("2. throughput: 8 clients × \(perClient) sequential OpenURLs to one warm app")
        print("   \(Int(opens / elapsed.seconds)) opens/s (\(String(format: "%.2f", elapsed.seconds)) s); the app answers one request at a time, in order")
    }

    /// Runs `body` with this process's standard error on /dev/null (section 1b's log lines).
    static func discardingStandardError<T>(_ body: () async throws -> T) async throws -> T {
        fflush(nil)
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        guard saved >= 0, null >= 0 else { throw BenchmarkFailure("cannot point standard error at /dev/null: \(String(cString: strerror(errno)))") }
        dup2(null, 2)
        close(null)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
        }
        return try await body()
    }

    /// What `ReceiverVerifier.stillHolds` costs per delivery for an app the broker did not launch
    /// (this process, as in section 1): the mean of many checks of this process's own verdict, the
    /// way the broker makes them (through the `/proc/PID` handle opened at `CheckIn`) and, for
    /// comparison, by path.
    static func receiverCheckCost(catalog: ManifestCatalog) -> (handle: Double, path: Double) {
        let verifier = ReceiverVerifier(launcher: ProcessLauncher(), resolver: catalog)
        let verdict = ReceiverVerdict.sameExecutable(ProcessIdentity.of(pid: getpid()))
        let handle = ProcessHandle(pid: getpid())
        let rounds = 20_000
        let clock = ContinuousClock()
        func mean(_ handle: ProcessHandle?) -> Double {
            var held = 0
            let t0 = clock.now
            for _ in 0..<rounds where verifier.stillHolds(verdict, bundleID: "org.example.bench.echo", handle: handle) { held += 1 }
            let elapsed = clock.now - t0
            precondition(held == rounds, "this process failed its own receiver check")
            return elapsed.seconds * 1e6 / Double(rounds)
        }
        _ = mean(handle)
        return (mean(handle), mean(nil))
    }

    /// `path` when it is an executable; else nil, having said that `section` is skipped and how to
    /// build what it needs.
    static func built(_ path: String, for section: String) -> String? {
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        print("\n\(section): skipped (\(path) not built; run `swift build -c release --product \(URL(fileURLWithPath: path).lastPathComponent)`)")
        return nil
    }

    // MARK: 3

    static func cold(bus: PrivateBus, bin: URL) async throws {
        guard let todolist = built(bin.appendingPathComponent("todolist").path, for: "3. cold OpenURL") else { return }
        let folder = bus.directory.appendingPathComponent("cold-manifests")
        let data = bus.directory.appendingPathComponent("cold-data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write("com.acme.todolist", schemes: ["todolist"], arguments: [todolist], to: folder)
        let marks = Mutex<(spawn: ContinuousClock.Instant?, checkIn: ContinuousClock.Instant?, delivering: ContinuousClock.Instant?, delivered: ContinuousClock.Instant?)>((nil, nil, nil, nil))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = data.path
        let launcher = ProcessLauncher(environment: environment, busAddress: bus.address)
        let service = try await startBroker(bus: bus, folders: [folder.path], launcher: launcher) { event in
            switch event {
            case .launching: marks.withLock { $0.spawn = ContinuousClock.now }
            case .checkedIn: marks.withLock { $0.checkIn = ContinuousClock.now }
            case .delivering: marks.withLock { $0.delivering = ContinuousClock.now }
            case .delivered: marks.withLock { $0.delivered = ContinuousClock.now }
            case .stateChanged: break
            }
        }
        defer { service.stop(); service.connection.close() }
        let client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        defer { client.connection.close() }
        var totals: [Duration] = []
        var startups: [Duration] = []
        var overheads: [Duration] = []
        var handlings: [Duration] = []
        let clock = ContinuousClock()
        for i in 0..<25 {
            marks.withLock { $0 = (nil, nil, nil, nil) }
            let t0 = clock.now
            let result = try await client.open("todolist://www.acme.com?Cold%20\(i)#today")
            let total = clock.now - t0
            guard result.handled, let (spawn, checkIn) = marks.withLock({ state in state.spawn.flatMap { s in state.checkIn.map { (s, $0) } } }) else {
                print("   run \(i): not a cold launch; skipped")
                continue
            }
            let handling = marks.withLock { state in state.delivering.flatMap { d in state.delivered.map { $0 - d } } } ?? .zero
            if i > 0 {   // the first run pays for page-cache misses
                totals.append(total)
                startups.append(checkIn - spawn)
                overheads.append(total - (checkIn - spawn))
                handlings.append(handling)
            }
            // Stop the app and wait until the broker has seen it go.
            if let pid = service.dispatcher.state(of: "com.acme.todolist").pid {
                kill(pid, SIGTERM)
                for _ in 0..<500 {
                    if case .notRunning = service.dispatcher.state(of: "com.acme.todolist") { break }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
        }
        let total = Stats(totals)
        let startup = Stats(startups)
        let overhead = Stats(overheads)
        let handling = Stats(handlings)
        let pure = Stats(zip(overheads, handlings).map { $0 - $1 })
        print("")
        print("3. cold OpenURL of todolist (\(totals.count) launches; todolist: \(linkage(of: todolist)))")
        print("   total (client's view)          p50 \(total.p50.milli)  p99 \(total.p99.milli) (target ≤ 8 ms at p50)")
        print("   app spawn → CheckIn (its own)   p50 \(startup.p50.milli)  p99 \(startup.p99.milli)")
        print("   total − spawn→CheckIn           p50 \(overhead.p50.milli)  p99 \(overhead.p99.milli) (includes the app handling its first URL)")
        print("   of which the app's first OpenURL p50 \(handling.p50.milli)  p99 \(handling.p99.milli) (broker→app call: todolist decodes, stores JSON, answers)")
        print("   broker's own overhead           p50 \(pure.p50.milli)  p99 \(pure.p99.milli) (target ≤ 5 ms: routing, spawn call, CheckIn, queueing, client hops)")
    }

    // MARK: 4

    static func wholeProcess(bus: PrivateBus, bin: URL, courier chosen: String?) async throws {
        let sibling = bin.appendingPathComponent("courier").path
        guard let courier = built(chosen ?? sibling, for: "4. whole process") else { return }
        let root = bus.directory.appendingPathComponent("desktop")
        let data = root.appendingPathComponent("data")
        let config = root.appendingPathComponent("config")
        let apps = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        // A desktop-entry handler for the same scheme, for gio and xdg-open.
        try """
            [Desktop Entry]
            Type=Application
            Name=Bench handler
            Exec=/bin/true %u
            MimeType=x-scheme-handler/bench;
            NoDisplay=true

            """.write(to: apps.appendingPathComponent("courier-bench-handler.desktop"), atomically: true, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/bench=courier-bench-handler.desktop\n".write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)

        let folder = bus.directory.appendingPathComponent("process-manifests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write("org.example.bench.echo", schemes: ["bench"], arguments: BenchManifest.inProcessApp, to: folder)
        let service = try await startBroker(bus: bus, folders: [folder.path])
        defer { service.stop(); service.connection.close() }
        let app = try Application.onBus(bus, bundleID: "org.example.bench.echo", delegate: EchoDelegate())
        try await app.start()
        defer { app.stop() }

        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_DATA_HOME"] = data.path
        environment["XDG_CONFIG_HOME"] = config.path
        environment["XDG_DATA_DIRS"] = data.path
        environment["XDG_CURRENT_DESKTOP"] = nil
        environment["DISPLAY"] = environment["DISPLAY"] ?? ":0"   // xdg-open's generic mode consults mimeapps.list only "with a display"
        let url = "bench://www.acme.com?process"
        var candidates: [(String, String, [String])] = [
            ("courier open", courier, ["open", url]),
        ]
        if courier != sibling, FileManager.default.isExecutableFile(atPath: sibling) {
            candidates.append(("courier (bench's own build)", sibling, ["open", url]))
        }
        candidates += [
            ("gio open", "/usr/bin/gio", ["open", url]),
            ("xdg-open", "/usr/bin/xdg-open", [url]),
        ]
        print("")
        print("4. a whole command, spawn to exit (warm app; gio/xdg-open to a desktop entry running /bin/true)")
        print("   courier open = \(courier) (\(linkage(of: courier)))\(courier == sibling ? ": the front `swift build` makes and scripts/install installs as bin/courier" : "")")
        var p50s: [String: Duration] = [:]
        for (label, path, arguments) in candidates {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                print("   \(label): not installed")
                continue
            }
            var times: [Duration] = []
            var failures = 0
            for i in 0..<31 {
                let (elapsed, status) = try timeProcess(path, arguments, environment: environment)
                if status != 0 { failures += 1 }
                if i > 0 { times.append(elapsed) }
            }
            let stats = Stats(times)
            p50s[label] = stats.p50
            print("   \(label.padding(toLength: 28, withPad: " ", startingAt: 0)) p50 \(stats.p50.milli)  p99 \(stats.p99.milli)\(failures > 0 ? "  (\(failures) runs exited non-zero)" : "")")
        }
        if let ours = p50s["courier open"] {
            for other in ["gio open", "xdg-open"] {
                if let theirs = p50s[other] {
                    print("   \(other) / courier open = \(String(format: "%.1f", theirs.seconds / ours.seconds))× (targets: gio ≥ 3×, xdg-open ≥ 10×)")
                }
            }
        }
    }

    /// "10.4 MB, fully static (no dynamic loader)" — how the timed `courier` was built: a
    /// dynamically linked executable names its loader (`/lib64/ld-linux…`) in its first bytes
    /// (PT_INTERP), and libswiftCore.so in its dynamic string table when the Swift runtime is shared.
    static func linkage(of path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 2 << 20)) ?? Data()
        let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil) ?? 0
        let kind: String
        if head.prefix(4096).range(of: Data("ld-linux".utf8)) == nil {
            kind = "fully static (no dynamic loader)"
        } else if head.range(of: Data("libswiftCore.so".utf8)) != nil {
            kind = "Swift runtime linked dynamically"
        } else {
            kind = "Swift runtime linked statically"
        }
        return String(format: "%.1f MB, %@", Double(size) / 1e6, kind)
    }

    /// Spawn to exit of one command through the shared `Spawner` (`posix_spawn` + `waitpid`; no
    /// Foundation `Process`, whose run loop adds its own latency to every candidate), standard
    /// output and error to /dev/null, a clean signal mask (this runs on a dispatch worker thread,
    /// which blocks most signals).
    static func timeProcess(_ path: String, _ arguments: [String], environment: [String: String]) throws -> (Duration, Int32) {
        let clock = ContinuousClock()
        let t0 = clock.now
        let child: ChildProcess
        do {
            child = try Spawner.start(path: path, arguments: [path] + arguments, environment: environment,
                                      standardOutput: .discard, standardError: .discard)
        } catch {
            throw BenchUsageError("cannot spawn \(path): \(error)")
        }
        let termination = child.wait()
        return (clock.now - t0, termination.shellStatus)
    }

    // MARK: 5

    static func idleMemory(bus: PrivateBus, bin: URL) async throws {
        guard let courierd = built(bin.appendingPathComponent("courierd").path, for: "5. idle RSS") else { return }
        let folder = bus.directory.appendingPathComponent("thousand")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<1000 {
            try BenchManifest.write(String(format: "org.example.app%04d", i), schemes: [String(format: "scheme%04d", i)], arguments: ["app\(i)"], to: folder)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_DATA_HOME"] = bus.directory.appendingPathComponent("rss-data").path
        let (process, client) = try await startCourierd(courierd, ["--manifests", folder.path, "--log-level", "error"], environment: environment, bus: bus)
        defer { process.stop(); client.connection.close() }
        let apps = try await client.listApplications().count
        try await Task.sleep(for: .seconds(1))
        let rss = residentKiB(of: process.pid)
        print("")
        print("5. courierd idle with \(apps) registered apps: RSS \(String(format: "%.1f", Double(rss) / 1024)) MiB (target ≤ 30 MiB)")
    }

    static func residentKiB(of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
        }
        return -1
    }

    // MARK: Helpers

    /// courierd as its own process (output discarded), and a client once it owns its name.
    static func startCourierd(_ courierd: String, _ arguments: [String], environment: [String: String], bus: PrivateBus) async throws -> (ChildProcess, BrokerToolClient) {
        let process: ChildProcess
        do {
            process = try Spawner.start(path: courierd, arguments: [courierd] + arguments, environment: environment, standardOutput: .discard)
        } catch {
            throw BenchmarkFailure("cannot run \(courierd): \(error)")
        }
        let client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        for _ in 0..<500 where !(await client.brokerIsRunning()) { try await Task.sleep(for: .milliseconds(10)) }
        return (process, client)
    }

    /// The logger `courierd` bootstraps by default: swift-log's stream handler on standard error, info.
    static func courierdLogger() -> Logger {
        var logger = Logger(label: "courierd") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .info
        return logger
    }

    /// A broker on `bus`, quiet (errors only) unless given a `logger`.
    static func startBroker(bus: PrivateBus, folders: [String], launcher: (any Launcher)? = nil, logger: Logger? = nil, directLinks: Bool = true,
                            observer: (@Sendable (DispatcherEvent) -> Void)? = nil) async throws -> BrokerService {
        let logger = logger ?? {
            var quiet = Logger(label: "courier-bench")
            quiet.logLevel = .error
            return quiet
        }()
        let catalog = ManifestCatalog(folders: folders, logger: logger)
        let service = BrokerService(connection: try DBusConnection(address: bus.address), catalog: catalog, busAddress: bus.address, launcher: launcher, logger: logger, observer: observer,
                                    directLinks: directLinks)
        try await service.start()
        return service
    }
}

enum BenchManifest {
    /// The launch command of an app served inside this process: the file this process runs, so the
    /// broker's receiver check (`/proc/PID/exe` against the launch command) admits its CheckIn.
    /// Named `/proc/PID/exe` rather than by the path it links to, because under valgrind (the
    /// callgrind profile of `--only open`) the process runs valgrind's tool binary while a readlink
    /// of its exe reports the program's path.
    static let inProcessApp = ["/proc/\(getpid())/exe"]

    static func write(_ bundleID: String, schemes: [String], arguments: [String]?, to folder: URL) throws {
        var plist: [String: Any] = [
            "CFBundleIdentifier": bundleID,
            "CFBundleName": bundleID,
            "CFBundleURLTypes": [["CFBundleURLName": bundleID, "CFBundleURLSchemes": schemes]],
        ]
        if let arguments { plist["CourierLaunchArguments"] = arguments }
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: folder.appendingPathComponent("\(bundleID).plist"))
    }
}

/// Percentiles of a sample.
struct Stats {
    let sorted: [Duration]
    init(_ values: [Duration]) { sorted = values.sorted() }
    func percentile(_ p: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
    }
    var p50: Duration { percentile(0.5) }
    var p99: Duration { percentile(0.99) }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
    var micro: String { String(format: "%7.1f µs", seconds * 1e6) }
    var milli: String { String(format: "%6.2f ms", seconds * 1e3) }
}
