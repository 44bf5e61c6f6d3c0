import BusTestSupport
import CDBusEcho
import CourierProcess
import DBus
import Foundation
import Synchronization

/// `courier-bench dbus-echo [--calls N] [--pipelined N] [--depth D] [--rounds R] [--cross] [--only ROW]
/// [--callgrind N | --no-callgrind]`
///
/// On one private dbus-daemon, measures an `Echo(s) → s` round trip (a) with a plain C libdbus
/// service and client, (b) with a Swift service and Swift client through the `DBus` module.
/// Each service runs in its own process (this executable, `--serve c|swift ADDRESS`); clients run
/// here. Prints p50/p99 of sequential calls, pipelined calls/s, and the Swift/C ratios
/// (targets: p50 ≤ 1.2× C, pipelined ≥ 0.8× C). `--cross` adds C client → Swift service and Swift
/// client → C service, which split the difference between the two sides. `--only ROW` runs one
/// configuration alone, to profile it (see `profile`). The run ends with instructions per call of
/// the C and the Swift client under callgrind (`DBusEchoCallgrind`; `--callgrind N` runs only that
/// section with N calls, `--no-callgrind` leaves it out).
enum DBusEchoBenchmark {
    static let name: BusName = "org.courier.bench.Echo"
    static let swiftName: BusName = "org.courier.bench.SwiftEcho"
    /// The Swift service whose `Echo` handler is forced to be `async` (a task per call); the
    /// main one's closure never awaits, so it binds to the immediate (task-free) handler.
    static let asyncName: BusName = "org.courier.bench.SwiftEchoAsync"
    static let path: ObjectPath = "/org/courier/bench/Echo"
    static let interface: InterfaceName = "org.courier.bench.Echo1"
    static let payload = "courier-echo-payload"

    static func run(arguments: [String]) async throws {
        if arguments.first == "--serve", arguments.count == 3 {
            try await serve(kind: arguments[1], address: arguments[2])
            return
        }
        var calls = 20_000
        var pipelined = 30_000
        var depth = 64
        // Five rounds: with three, the pipelined median moved by ±8 % from one run to the next on
        // a 2-CPU machine (where the dbus-daemon holds one CPU and the scheduler places the rest),
        // more than the differences it is read for.
        var rounds = 5
        let cross = arguments.contains("--cross")
        let withCallgrind = !arguments.contains("--no-callgrind")
        var only: String?
        var callgrindCalls: Int?
        let arguments = arguments.filter { $0 != "--cross" && $0 != "--no-callgrind" }
        var i = 0
        while i + 1 < arguments.count {
            switch arguments[i] {
            case "--calls": calls = Int(arguments[i + 1]) ?? calls
            case "--pipelined": pipelined = Int(arguments[i + 1]) ?? pipelined
            case "--depth": depth = Int(arguments[i + 1]) ?? depth
            case "--rounds": rounds = max(1, Int(arguments[i + 1]) ?? rounds)
            case "--only": only = arguments[i + 1]
            case "--callgrind": callgrindCalls = max(1, Int(arguments[i + 1]) ?? 2000)
            default: break
            }
            i += 2
        }
        if let callgrindCalls {
            DBusEchoCallgrind.run(calls: callgrindCalls, depth: depth)
            return
        }
        let bus = try PrivateBus()
        defer { bus.stop() }
        print("dbus-echo: one private dbus-daemon; per round \(calls) sequential calls and \(pipelined) calls with \(depth) in flight; \(rounds) interleaved rounds, medians reported")

        // Both services run side by side (separate processes); rounds interleave C and Swift so
        // load changes on the machine hit both alike.
        let cService = try startService("c", bus: bus).process
        defer { stop(cService) }
        let swiftService = try startService("swift", bus: bus).process
        defer { stop(swiftService) }
        let asyncService = try startService("swift-async", bus: bus).process
        defer { stop(asyncService) }
        let (directService, directAddress) = try startDirectService(bus: bus)
        defer { stop(directService) }
        let client = try bus.connect()
        defer { client.close() }
        let buffer = UnsafeMutablePointer<UInt64>.allocate(capacity: max(calls, 1000))
        defer { buffer.deallocate() }
        _ = courier_echo_client_sequential(bus.address, name.rawValue, 1000, buffer)
        _ = try await sequential(client, count: 1000)

        if let only {
            try await profile(only, client: client, bus: bus, calls: calls, depth: depth, buffer: buffer,
                              service: only.hasSuffix("-c") ? cService.pid : only.hasSuffix("-async") ? asyncService.pid : swiftService.pid)
            return
        }

        var cSeq: [Stats] = [], cRate: [Double] = []
        var gSeq: [Stats] = []
        var sSeq: [Stats] = [], sRate: [Double] = []
        var lSeq: [Stats] = [], lRate: [Double] = []
        var iSeq: [Stats] = [], iRate: [Double] = []
        var fRate: [Double] = []
        var xcSeq: [Stats] = [], xcRate: [Double] = []
        var xsSeq: [Stats] = [], xsRate: [Double] = []
        let n = calls
        // CPU time per sequential call (all threads of the client process / of the service
        // process), summed over rounds: unlike latency, it hardly moves with the machine's load.
        // The client's kernel share is kept apart: it is where the two clients differ by design
        // (system calls per call), while user space is each library's own code.
        var cpu: [String: CPUPerCall] = [:]
        func account(_ row: String, service: Int32, calls: Int, _ body: () async throws -> Void) async rethrows {
            let (c0, k0, s0) = (Self.cpuNanoseconds(getpid()), Self.kernelNanoseconds(), Self.cpuNanoseconds(service))
            try await body()
            let (c1, k1, s1) = (Self.cpuNanoseconds(getpid()), Self.kernelNanoseconds(), Self.cpuNanoseconds(service))
            // Saturating: a service thread that exits takes its time out of the sum (a wrapped
            // difference once overflowed the total and trapped).
            cpu[row, default: CPUPerCall()].add(client: c1 > c0 ? c1 - c0 : 0, kernel: k1 > k0 ? k1 - k0 : 0, service: s1 > s0 ? s1 - s0 : 0, calls: calls)
        }
        // The rows compared with each other — (a) and (b) sequential, then pipelined — run back to
        // back, in an order that alternates with the round: what a row finds on the machine (where
        // the scheduler has put the daemon and the services) depends on the row before it, and a
        // fixed order gave one side the same neighbour in every round.
        func cSequential() async throws {
            try await account("a", service: cService.pid, calls: calls) {
                guard courier_echo_client_sequential(bus.address, name.rawValue, Int32(calls), buffer) == 0 else {
                    throw DBusError.failed("C sequential client failed")
                }
            }
            cSeq.append(Stats(Array(UnsafeBufferPointer(start: buffer, count: calls))))
        }
        func swiftSequential() async throws {
            try await account("b", service: swiftService.pid, calls: calls) {
                sSeq.append(Stats(try await sequential(client, count: calls)))
            }
        }
        func cPipelined() throws {
            let cNs = courier_echo_client_pipelined(bus.address, name.rawValue, Int32(pipelined), Int32(depth))
            guard cNs > 0 else { throw DBusError.failed("C pipelined client failed") }
            cRate.append(Double(pipelined) / (Double(cNs) / 1e9))
        }
        func swiftPipelined() async throws {
            sRate.append(try await pipeline(client, total: pipelined, depth: depth, executor: nil))
        }
        for round in 0..<rounds {
            let cFirst = round % 2 == 0
            if cFirst {
                try await cSequential()
                try await swiftSequential()
            } else {
                try await swiftSequential()
                try await cSequential()
            }
            guard courier_echo_client_sequential(directAddress, nil, Int32(calls), buffer) == 0 else {
                throw DBusError.failed("C sequential client on the direct connection failed")
            }
            gSeq.append(Stats(Array(UnsafeBufferPointer(start: buffer, count: calls))))
            if cFirst {
                try cPipelined()
                try await swiftPipelined()
            } else {
                try await swiftPipelined()
                try cPipelined()
            }
            try await account("b'", service: swiftService.pid, calls: calls) {
                lSeq.append(Stats(try await onConnectionExecutor(client) { try await sequential(client, count: n) }))
            }
            lRate.append(try await pipeline(client, total: pipelined, depth: depth, executor: client.executor))
            try await account("e", service: asyncService.pid, calls: calls) {
                iSeq.append(Stats(try await onConnectionExecutor(client) { try await sequential(client, count: n, to: asyncName) }))
            }
            iRate.append(try await pipeline(client, total: pipelined, depth: depth, executor: client.executor, to: asyncName))
            fRate.append(try await pipelineWithCompletions(client, total: pipelined, depth: depth))
            if cross {
                // The cross pairs (C client to Swift service, Swift to C): the same measurement
                // with the roles swapped, so each row of the table reads the same way.
                try await account("c", service: swiftService.pid, calls: calls) {
                    guard courier_echo_client_sequential(bus.address, swiftName.rawValue, Int32(calls), buffer) == 0 else {
                        throw DBusError.failed("C sequential client failed")
                    }
                }
                xcSeq.append(Stats(Array(UnsafeBufferPointer(start: buffer, count: calls))))
                let ns = courier_echo_client_pipelined(bus.address, swiftName.rawValue, Int32(pipelined), Int32(depth))
                guard ns > 0 else { throw DBusError.failed("C pipelined client failed") }
                xcRate.append(Double(pipelined) / (Double(ns) / 1e9))
                try await account("d", service: cService.pid, calls: calls) {
                    xsSeq.append(Stats(try await sequential(client, count: calls, to: name)))
                }
                xsRate.append(try await pipeline(client, total: pipelined, depth: depth, executor: nil, to: name))
            }
        }
        func median<T: Comparable>(_ xs: [T]) -> T { xs.sorted()[xs.count / 2] }
        let c = Stats(p50: median(cSeq.map(\.p50)), p99: median(cSeq.map(\.p99)))
        let sw = Stats(p50: median(sSeq.map(\.p50)), p99: median(sSeq.map(\.p99)))
        let lp = Stats(p50: median(lSeq.map(\.p50)), p99: median(lSeq.map(\.p99)))
        let ip = Stats(p50: median(iSeq.map(\.p50)), p99: median(iSeq.map(\.p99)))
        let (cr, sr, lr, ir) = (median(cRate), median(sRate), median(lRate), median(iRate))

        func us(_ ns: UInt64) -> String { String(format: "%7.1f µs", Double(ns) / 1000) }
        func row(_ label: String, _ s: Stats, _ rate: Double) {
            print("  \(label.padding(toLength: 40, withPad: " ", startingAt: 0)) p50 \(us(s.p50))  p99 \(us(s.p99))  pipelined \(String(format: "%8.0f", rate)) calls/s")
        }
        row("(a) C libdbus client → C service", c, cr)
        row("(b) Swift client → Swift service", sw, sr)
        row("(b') same, caller on connection executor", lp, lr)
        row("(e) as (b'), handler declared async", ip, ir)
        print("  \("(f) Swift → Swift, calls w/ completions".padding(toLength: 40, withPad: " ", startingAt: 0))                               pipelined \(String(format: "%8.0f", median(fRate))) calls/s")
        let direct = Stats(p50: median(gSeq.map(\.p50)), p99: median(gSeq.map(\.p99)))
        print("  \("(g) C client → C service, direct".padding(toLength: 40, withPad: " ", startingAt: 0)) p50 \(us(direct.p50))  p99 \(us(direct.p99))  (a peer-to-peer connection, no dbus-daemon between)")
        if cross {
            row("(c) C client → Swift service", Stats(p50: median(xcSeq.map(\.p50)), p99: median(xcSeq.map(\.p99))), median(xcRate))
            row("(d) Swift client → C service", Stats(p50: median(xsSeq.map(\.p50)), p99: median(xsSeq.map(\.p99))), median(xsRate))
        }
        print("CPU per sequential call (µs, every thread of the process; load-independent):")
        for row in ["a", "b", "b'", "e", "c", "d"] {
            guard let t = cpu[row], t.calls > 0 else { continue }
            func figure(_ value: Double) -> String { String(format: "%5.1f", value) }
            let rounds = t.clientPerRound.map { String(format: "%.1f", $0) }.joined(separator: ", ")
            print("  (\(row))\(row.count == 1 ? " " : "") client \(figure(t.client)) (user \(figure(t.user)), kernel \(figure(t.kernel)); rounds \(rounds))  service \(figure(t.service))")
        }
        func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
        print("a round trip through the dbus-daemon / the same round trip direct (C, p50): \(ratio(Double(c.p50), Double(direct.p50))) (what the bus's hop costs: \(us(c.p50 > direct.p50 ? c.p50 - direct.p50 : 0)) per round trip)")
        print("ratios (Swift / C):")
        print("  p50: \(ratio(Double(sw.p50), Double(c.p50))) (caller on connection executor: \(ratio(Double(lp.p50), Double(c.p50)))); target ≤ 1.20×")
        print("  p99: \(ratio(Double(sw.p99), Double(c.p99))) (caller on connection executor: \(ratio(Double(lp.p99), Double(c.p99))))")
        print("  pipelined: \(ratio(sr, cr)) (caller on connection executor: \(ratio(lr, cr))); target ≥ 0.80×")
        // Each round's C and Swift rates were measured seconds apart: their ratio shows how far
        // the machine moved the median.
        let perRound = zip(sRate, cRate).map { String(format: "%.2f", $0 / $1) }.joined(separator: ", ")
        print("    default caller, each round: \(perRound)")
        if let a = cpu["a"], let b = cpu["b"], a.calls > 0, b.calls > 0 {
            print("  client CPU per sequential call: \(ratio(b.client, a.client)) (user space \(ratio(b.user, a.user)), kernel \(ratio(b.kernel, a.kernel))); target ≤ 1.20×")
        }
        print("  (f) pipelined with completions (no task per call): \(ratio(median(fRate), cr))")
        print("  (e) async handler, caller on executor: p50 \(ratio(Double(ip.p50), Double(c.p50))), p99 \(ratio(Double(ip.p99), Double(c.p99))), pipelined \(ratio(ir, cr))")
        if withCallgrind {
            DBusEchoCallgrind.run(calls: 2000, depth: depth)
        }
    }

    /// `--only ROW`: one configuration alone, for `perf stat`/`perf record` on this process or a
    /// service (compare two `--calls` values to cancel the set-up): `seq-c` (C client → C service),
    /// `seq` (Swift → Swift, default caller), `seq-exec` (caller on the connection executor),
    /// `pipe`, `pipe-exec` (pipelined Swift → Swift), `pipe-cb` (pipelined with completions),
    /// `pipe-c` (pipelined C → C), `seq-async`,
    /// `pipe-async` (caller on the executor → the service whose handler is `async`).
    static func profile(
        _ row: String, client: DBusConnection, bus: PrivateBus, calls: Int, depth: Int,
        buffer: UnsafeMutablePointer<UInt64>, service: Int32
    ) async throws {
        let (c0, s0) = (cpuNanoseconds(getpid()), cpuNanoseconds(service))
        let switches0 = contextSwitches()
        let kernel0 = kernelNanoseconds()
        var p50: UInt64 = 0
        var rate = 0.0
        switch row {
        case "seq-c":
            guard courier_echo_client_sequential(bus.address, name.rawValue, Int32(calls), buffer) == 0 else {
                throw DBusError.failed("C sequential client failed")
            }
            p50 = Stats(Array(UnsafeBufferPointer(start: buffer, count: calls))).p50
        case "seq": p50 = Stats(try await sequential(client, count: calls)).p50
        case "seq-exec":
            let n = calls
            p50 = Stats(try await onConnectionExecutor(client) { try await sequential(client, count: n) }).p50
        case "seq-async":
            let n = calls
            p50 = Stats(try await onConnectionExecutor(client) { try await sequential(client, count: n, to: asyncName) }).p50
        case "pipe-async": rate = try await pipeline(client, total: calls, depth: depth, executor: client.executor, to: asyncName)
        case "pipe": rate = try await pipeline(client, total: calls, depth: depth, executor: nil)
        case "pipe-exec": rate = try await pipeline(client, total: calls, depth: depth, executor: client.executor)
        case "pipe-cb": rate = try await pipelineWithCompletions(client, total: calls, depth: depth)
        case "pipe-c":
            let ns = courier_echo_client_pipelined(bus.address, name.rawValue, Int32(calls), Int32(depth))
            guard ns > 0 else { throw DBusError.failed("C pipelined client failed") }
            rate = Double(calls) / (Double(ns) / 1e9)
        default: throw DBusError.failed("unknown --only \(row): seq-c, seq, seq-exec, seq-async, pipe, pipe-exec, pipe-cb, pipe-c, pipe-async")
        }
        let (c1, s1) = (cpuNanoseconds(getpid()), cpuNanoseconds(service))
        let switches = contextSwitches() - switches0
        let kernel = kernelNanoseconds() - kernel0
        print("\(row): \(calls) calls, " + String(format: "p50 %.1f µs, %.0f calls/s, CPU per call: client %.1f µs (kernel %.1f), service %.1f µs; client context switches per call %.2f",
                     Double(p50) / 1000, rate, Double(c1 > c0 ? c1 - c0 : 0) / Double(calls) / 1000, Double(kernel) / Double(calls) / 1000,
                     Double(s1 > s0 ? s1 - s0 : 0) / Double(calls) / 1000, Double(switches) / Double(calls)))
    }

    /// System time of every thread of this process so far, nanoseconds.
    static func kernelNanoseconds() -> UInt64 {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return UInt64(Int(u.ru_stime.tv_sec) * 1_000_000 + Int(u.ru_stime.tv_usec)) * 1000
    }

    /// Voluntary and involuntary context switches of every thread of this process so far: each
    /// thread wake-up between the socket and the caller costs one or two.
    static func contextSwitches() -> Int {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return u.ru_nvcsw + u.ru_nivcsw
    }

    struct Stats {
        let p50: UInt64
        let p99: UInt64
        init(p50: UInt64, p99: UInt64) {
            self.p50 = p50
            self.p99 = p99
        }
        init(_ samples: [UInt64]) {
            let s = samples.sorted()
            p50 = s[s.count / 2]
            p99 = s[min(s.count - 1, s.count * 99 / 100)]
        }
    }

    /// CPU time of every thread of `pid` so far, nanoseconds. This process: `getrusage`, which
    /// also counts threads that have exited (summing live threads made a row negative when a pool
    /// thread ended). A service: /proc/PID/task/*/schedstat (its threads live as long as it does).
    static func cpuNanoseconds(_ pid: Int32) -> UInt64 {
        if pid == getpid() {
            var u = rusage()
            getrusage(RUSAGE_SELF.rawValue, &u)
            let us = (Int(u.ru_utime.tv_sec) + Int(u.ru_stime.tv_sec)) * 1_000_000 + Int(u.ru_utime.tv_usec) + Int(u.ru_stime.tv_usec)
            return UInt64(us) * 1000
        }
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return 0 }
        var total: UInt64 = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                  let first = text.split(separator: " ").first, let ns = UInt64(first) else { continue }
            total += ns
        }
        return total
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func echo(_ c: DBusConnection, to destination: BusName = swiftName) async throws {
        let r = try await c.call(destination, path: path, interface: interface, method: "Echo", [.string(payload)])
        guard r.first?.stringValue == payload else { throw DBusError.failed("wrong echo reply \(r)") }
    }

    static func sequential(_ c: DBusConnection, count: Int, to destination: BusName = swiftName) async throws -> [UInt64] {
        var samples = [UInt64](repeating: 0, count: count)
        for i in 0..<count {
            let t0 = now()
            try await echo(c, to: destination)
            samples[i] = now() - t0
        }
        return samples
    }

    /// Pipelined with `DBusConnection.call(…, completion:)`: `depth` calls in flight, each reply's
    /// completion (on the I/O thread) sends the next call; no task per call.
    static func pipelineWithCompletions(_ c: DBusConnection, total: Int, depth: Int, to destination: BusName = swiftName) async throws -> Double {
        struct Progress { var sent = 0; var answered = 0; var failure: (any Error)? }
        let progress = Mutex(Progress())
        let t0 = now()
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            @Sendable func send() {
                c.call(destination, path: path, interface: interface, method: "Echo", [.string(payload)]) { result in
                    let (next, finished) = progress.withLock { p -> (Bool, Bool) in
                        p.answered += 1
                        if case .failure(let error) = result { p.failure = p.failure ?? error }
                        else if (try? result.get())?.body.first?.stringValue != payload { p.failure = p.failure ?? DBusError.failed("wrong echo reply") }
                        let next = p.sent < total && p.failure == nil
                        if next { p.sent += 1 }
                        return (next, p.answered == p.sent && !next)
                    }
                    if next { send() }
                    if finished {
                        if let failure = progress.withLock({ $0.failure }) { done.resume(throwing: failure) } else { done.resume() }
                    }
                }
            }
            let first = progress.withLock { p -> Int in p.sent = min(depth, total); return p.sent }
            for _ in 0..<first { send() }
        }
        return Double(total) / (Double(now() - t0) / 1e9)
    }

    static func onConnectionExecutor<T: Sendable>(_ c: DBusConnection, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task(executorPreference: c.executor) { try await body() }.value
    }

    static func pipeline(_ c: DBusConnection, total: Int, depth: Int, executor: (any TaskExecutor)?, to destination: BusName = swiftName) async throws -> Double {
        let t0 = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<depth {
                let share = total / depth + (w < total % depth ? 1 : 0)
                let worker: @Sendable () async throws -> Void = {
                    for _ in 0..<share { try await echo(c, to: destination) }
                }
                // The default caller's tasks are plain `addTask` children, as a user writes them:
                // `addTask(executorPreference: nil)` gives each task a preference record, and then
                // every hop of the task scans its status records under a lock (callgrind: 13 of
                // those scans per call, ~2 k instructions), which ordinary tasks do not pay.
                if let executor {
                    group.addTask(executorPreference: executor, operation: worker)
                } else {
                    group.addTask(operation: worker)
                }
            }
            try await group.waitForAll()
        }
        return Double(total) / (Double(now() - t0) / 1e9)
    }

    /// CPU time of one row's sequential calls, summed over rounds; read per call, in µs.
    struct CPUPerCall {
        private var clientNs: UInt64 = 0, kernelNs: UInt64 = 0, serviceNs: UInt64 = 0
        private(set) var calls = 0
        /// The client process's CPU per call in each round: how much placement moves it.
        private(set) var clientPerRound: [Double] = []

        mutating func add(client: UInt64, kernel: UInt64, service: UInt64, calls: Int) {
            clientNs += client
            kernelNs += min(kernel, client)
            serviceNs += service
            self.calls += calls
            clientPerRound.append(Double(client) / Double(calls) / 1000)
        }

        private func perCall(_ ns: UInt64) -> Double { Double(ns) / Double(calls) / 1000 }
        /// Every thread of the client process.
        var client: Double { perCall(clientNs) }
        /// The client's kernel share (system calls, wake-ups); `user` is the rest: each library's own code.
        var kernel: Double { perCall(kernelNs) }
        var user: Double { perCall(clientNs - kernelNs) }
        var service: Double { perCall(serviceNs) }
    }

    // MARK: Service processes

    /// A service process of kind `kind` (`c`, `swift`, `swift-async`: on the bus; `c-direct`:
    /// listening in the folder given as `argument`), once it has printed "ready"; what it printed.
    static func startService(_ kind: String, bus: PrivateBus, argument: String? = nil) throws -> (process: ChildProcess, banner: String) {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let child: ChildProcess
        do {
            child = try Spawner.start(path: executable, arguments: [executable, "dbus-echo", "--serve", kind, argument ?? bus.address], standardOutput: .pipe)
        } catch {
            throw BenchmarkFailure("cannot run \(executable): \(error)")
        }
        guard let banner = child.readOutput(until: "ready") else {
            child.stop()
            throw DBusError.failed("the \(kind) echo service exited before it was ready")
        }
        return (child, banner)
    }

    /// The C service of row (g), listening for direct peers in the bus's folder; its address.
    static func startDirectService(bus: PrivateBus) throws -> (ChildProcess, address: String) {
        let (child, banner) = try startService("c-direct", bus: bus, argument: bus.directory.path)
        guard let line = banner.split(separator: "\n").first(where: { $0.hasPrefix("address ") }) else {
            child.stop()
            throw DBusError.failed("the direct echo service did not say its address")
        }
        return (child, String(line.dropFirst("address ".count)))
    }

    static func stop(_ p: ChildProcess) {
        p.stop(grace: .zero)
    }

    static func serve(kind: String, address: String) async throws {
        if kind == "c" {
            exit(courier_echo_serve(address, name.rawValue) == 0 ? 0 : 1)
        }
        if kind == "c-direct" {
            exit(courier_echo_serve_direct(address) == 0 ? 0 : 1)
        }
        let c = try DBusConnection(address: address)
        let forceAsync = kind == "swift-async"
        // Written the natural way, the closure never awaits and binds to `immediate:`; the
        // `handler:` label forces the async handler (a task per call) for row (e).
        let echo = forceAsync
            ? DBusMethod("Echo", arguments: "s", results: "s", handler: { call in call.arguments })
            : DBusMethod("Echo", arguments: "s", results: "s") { call in call.arguments }
        try c.export([DBusInterface(interface, methods: [echo])], at: path)
        let owned = forceAsync ? asyncName : swiftName
        guard try await c.requestName(owned, flags: .doNotQueue) == .primaryOwner else {
            throw DBusError.failed("cannot own \(owned)")
        }
        print("ready")
        fflush(nil)
        await c.waitUntilDisconnected()
    }
}
