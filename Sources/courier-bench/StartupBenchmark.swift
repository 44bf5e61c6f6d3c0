import BusTestSupport
import Courier
import CourierProcess
import CourierProtocol
import DBus
import Foundation
import Glibc
import Synchronization

/// `courier-bench startup`: an app's own start-up — exec, connect, serve its path, own its bundle
/// id, `CheckIn` — through the Courier library against the same steps in bare C libdbus, in one
/// run on one private dbus-daemon, interleaved.
///
/// A stand-in broker in this process owns `org.courier.Broker` and answers `CheckIn` at once,
/// noting when it arrived: the time measured is spawn → `CheckIn` received, with no broker work
/// in it (the real broker's side of a cold open is `courier-bench broker`, section 3). Each app
/// also reports its CPU time (user + system, from `wait4`), which a loaded machine does not skew.
///
/// - bare C libdbus (Hello, register the path, RequestName, CheckIn; exit): CPeer/courier-bench-capp.c,
///   compiled here with `cc -O2` against libdbus alone (Swift's driver would link the Swift runtime in).
/// - `courier-bench-app`: `Application.start()` of the Courier library, then exit; linked like
///   the todolist example (fully static: Package.swift, `nativeToolLinking`). Target: ≤ 1.5× the C app at p50.
/// - `todolist run`: the example app, for reference (signalled once checked in).
enum StartupBenchmark {
    struct Candidate {
        let label: String
        let path: String
        let arguments: [String]
        let bundleID: String
        /// Serves until signalled (the todolist) rather than exiting once checked in.
        let serves: Bool
    }

    static func run(arguments: [String]) async throws {
        let rounds = try BrokerBenchmark.rounds(arguments, default: 40, usage: "courier-bench startup [--rounds N] (launches of each app, default 40)")
        let bin = Products.folder
        let bus = try PrivateBus()
        defer { bus.stop() }
        let capp = try compileCPeer(into: bus.directory)
        let candidates = [
            Candidate(label: "bare C libdbus (courier-bench-capp)", path: capp, arguments: [], bundleID: "org.example.bench.capp", serves: false),
            Candidate(label: "Courier library (courier-bench-app)", path: bin.appendingPathComponent("courier-bench-app").path, arguments: [], bundleID: "org.example.bench.app", serves: false),
            Candidate(label: "todolist example (todolist run)", path: bin.appendingPathComponent("todolist").path, arguments: ["run"], bundleID: "com.acme.todolist", serves: true),
        ]
        for candidate in candidates where !FileManager.default.isExecutableFile(atPath: candidate.path) {
            print("startup: skipped (\(candidate.path) not built; run `swift build -c release --product \(URL(fileURLWithPath: candidate.path).lastPathComponent)`)")
            return
        }
        // The stand-in broker: CheckIn(s) → a{sv}, noting when each bundle id checked in.
        let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
        let broker = try DBusConnection(address: bus.address)
        defer { broker.close() }
        try broker.export([DBusInterface(Broker1.name, methods: [
            Broker1.checkIn.serving { call in
                let now = ContinuousClock.now
                if let id = call.arguments[0].stringValue { arrivals.withLock { $0[id] = now } }
                return [.vardict([:])]
            },
        ])], at: Broker1.objectPath)
        guard try await broker.requestName(Broker1.busName, flags: [.doNotQueue]).isOwner else {
            throw BenchmarkFailure("cannot own \(Broker1.busName) on the private bus")
        }
        var environment = bus.environment
        environment["XDG_DATA_HOME"] = bus.directory.appendingPathComponent("startup-data").path
        environment["XDG_STATE_HOME"] = bus.directory.appendingPathComponent("startup-state").path

        print("startup benchmark: spawn → CheckIn received by a stand-in broker, \(rounds) launches of each app, interleaved; CPU = the app's user + system time")
        var walls = [[Duration]](repeating: [], count: candidates.count)
        var cpus = [[Duration]](repeating: [], count: candidates.count)
        let clock = ContinuousClock()
        for round in 0...rounds {   // round 0 warms the page cache
            for (i, candidate) in candidates.enumerated() {
                var env = environment
                env["COURIER_BUNDLE_ID"] = candidate.bundleID
                arrivals.withLock { $0[candidate.bundleID] = nil }
                let t0 = clock.now
                let child: ChildProcess
                do {
                    child = try Spawner.start(path: candidate.path, arguments: [candidate.path] + candidate.arguments, environment: env,
                                              standardOutput: .discard, standardError: .discard)
                } catch {
                    throw BenchmarkFailure("cannot spawn \(candidate.path): \(error)")
                }
                var arrived: ContinuousClock.Instant?
                for _ in 0..<20_000 {
                    arrived = arrivals.withLock { $0[candidate.bundleID] }
                    if arrived != nil || child.poll() != nil { break }
                    try await Task.sleep(for: .microseconds(200))
                }
                if candidate.serves { child.signal(SIGTERM) }
                let (status, cpu) = reap(child.pid)
                guard let arrived else { throw BenchmarkFailure("\(candidate.label) never checked in (\(status))") }
                if round > 0 {
                    walls[i].append(arrived - t0)
                    cpus[i].append(cpu)
                }
            }
        }
        print("")
        for (i, candidate) in candidates.enumerated() {
            let wall = Stats(walls[i])
            let cpu = Stats(cpus[i])
            print("   \(candidate.label.padding(toLength: 38, withPad: " ", startingAt: 0)) spawn → CheckIn p50 \(wall.p50.milli)  p99 \(wall.p99.milli)   CPU p50 \(cpu.p50.milli)")
        }
        let (c, swift, todo) = (Stats(walls[0]).p50, Stats(walls[1]).p50, Stats(walls[2]).p50)
        let (cCPU, swiftCPU, todoCPU) = (Stats(cpus[0]).p50, Stats(cpus[1]).p50, Stats(cpus[2]).p50)
        print("   ratio p50 Courier library / bare libdbus start-up = \(String(format: "%.2f", swift.seconds / c.seconds)) (target ≤ 1.5); CPU \(String(format: "%.2f", swiftCPU.seconds / cCPU.seconds))")
        print("   ratio p50 todolist / bare libdbus start-up = \(String(format: "%.2f", todo.seconds / c.seconds)); CPU \(String(format: "%.2f", todoCPU.seconds / cCPU.seconds)) (todolist's CPU includes its SIGTERM exit)")
    }

    /// Compiles the bare C app (next to this file in the source tree) with `cc`, against libdbus only.
    static func compileCPeer(into folder: URL) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("CPeer/courier-bench-capp.c").path
        let output = folder.appendingPathComponent("courier-bench-capp").path
        guard FileManager.default.fileExists(atPath: source) else {
            throw BenchmarkFailure("startup: \(source) is missing; run the benchmark from its source tree")
        }
        let command = "cc -O2 -o '\(output)' '\(source)' $(pkg-config --cflags --libs dbus-1)"
        let (status, cpu) = reap(try Spawner.start(path: "/bin/sh", arguments: ["sh", "-c", command]).pid)
        guard status.succeeded else { throw BenchmarkFailure("startup: \(command) failed (\(status), \(cpu))") }
        return output
    }

    /// Reaps `pid`: its termination and the CPU time it used (user + system, `wait4`'s rusage).
    static func reap(_ pid: Int32) -> (ChildProcess.Termination, Duration) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let micros = Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return (ChildProcess.Termination(waitStatus: status), .microseconds(micros))
    }
}
