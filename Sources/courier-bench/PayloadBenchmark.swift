import BusTestSupport
import CourierTools
import CourierBroker
import CourierProtocol
import DBus
import Foundation
import Glibc
import Synchronization

/// `courier-bench payload`: large annotations through the broker, against the same payload in a
/// bare Swift-to-Swift echo on the same private dbus-daemon, interleaved.
///
/// 1. 4 MiB `ay` annotation: `OpenURL` → broker → app, the app's small answer back (the payload
///    crosses twice: client → broker through the bus, broker → app over the app's direct link)
///    vs a bare echo (client → service → client through the bus, also twice). Target: ≤ 2× at p50.
///    Also printed: the app returning the annotation in its reply (four crossings against the
///    echo's two).
/// 2. 64 MiB annotation: answered with `LimitsExceeded` at once — by the library before sending,
///    and by the broker on the raw contract (its time beside a bare one-way send of the same
///    bytes) — and the broker answers the next request.
enum PayloadBenchmark {
    static let bundleID = "org.example.bench.payload"

    static func run(arguments: [String]) async throws {
        let rounds = try BrokerBenchmark.rounds(arguments, default: 15, usage: "courier-bench payload [--rounds N] (timed rounds of each 4 MiB case, default 15)")
        // The app: `courier-test-app payload` (answers with the annotation's size, or the annotation
        // itself for `?echo`), launched by the broker at the first request.
        let bin = Products.folder
        let testApp = bin.appendingPathComponent("courier-test-app").path
        guard FileManager.default.isExecutableFile(atPath: testApp) else {
            print("payload: skipped (\(testApp) not built; run `swift build -c release --product courier-test-app`)")
            return
        }
        let bus = try PrivateBus()
        defer { bus.stop() }
        let folder = bus.directory.appendingPathComponent("payload-manifests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BenchManifest.write(bundleID, schemes: ["payload"], arguments: [testApp, "payload"], to: folder)
        var environment = bus.environment
        environment["XDG_DATA_HOME"] = bus.directory.appendingPathComponent("payload-data").path
        environment["XDG_STATE_HOME"] = bus.directory.appendingPathComponent("payload-state").path
        let launcher = ProcessLauncher(environment: environment, busAddress: bus.address)
        let service = try await BrokerBenchmark.startBroker(bus: bus, folders: [folder.path], launcher: launcher)
        defer {
            if let pid = service.dispatcher.state(of: bundleID).pid { kill(pid, SIGTERM) }
            service.stop()
            service.connection.close()
        }

        // The baseline: a bare Swift service on its own connection.
        let echo = try DBusConnection(address: bus.address)
        defer { echo.close() }
        try echo.export([DBusInterface("org.courier.Bench", methods: [
            DBusMethod("Echo", arguments: "v", results: "v") { call in [call.arguments[0]] },
            DBusMethod("Take", arguments: "v", results: "t") { call in [.uint64(UInt64(call.arguments[0].byteCount))] },
        ])], at: "/org/courier/Bench")
        guard let echoName = echo.uniqueName else { return }
        let client = BrokerToolClient(connection: try DBusConnection(address: bus.address))
        defer { client.connection.close() }
        @Sendable func bare(_ method: MemberName, _ value: DBusValue) async throws -> [DBusValue] {
            try await client.connection.call(echoName, path: "/org/courier/Bench", interface: "org.courier.Bench", method: method, [.variant(value)], timeout: .seconds(120))
        }

        let fourMiB = DBusValue.bytes((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        print("payload benchmark: private dbus-daemon, broker in this process, the app courier-test-app payload, a bare Swift echo service in this process; \(rounds) interleaved rounds, p50")
        // Warm-up (allocator, caches), and a check that the payload arrives whole.
        for _ in 0..<2 {
            let result = try await client.open("payload://bench?echo", options: OpenRequestOptions(annotation: fourMiB))
            guard result.handled, result.reply["annotation"] == fourMiB, result.reply["size"]?.uint64Value == 4 << 20 else {
                throw BenchmarkFailure("the 4 MiB annotation did not come back intact from the app")
            }
            guard try await bare("Echo", fourMiB) == [.variant(fourMiB)] else { throw BenchmarkFailure("the bare echo changed the payload") }
        }
        var echoTimes: [Duration] = []
        var openTimes: [Duration] = []
        var echoedOpenTimes: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let t0 = clock.now
            _ = try await bare("Echo", fourMiB)
            let t1 = clock.now
            _ = try await client.open("payload://bench?size", options: OpenRequestOptions(annotation: fourMiB))
            let t2 = clock.now
            _ = try await client.open("payload://bench?echo", options: OpenRequestOptions(annotation: fourMiB))
            let t3 = clock.now
            echoTimes.append(t1 - t0)
            openTimes.append(t2 - t1)
            echoedOpenTimes.append(t3 - t2)
        }
        let (echoP50, openP50, echoedP50) = (Stats(echoTimes).p50, Stats(openTimes).p50, Stats(echoedOpenTimes).p50)
        print("")
        print("1. 4 MiB annotation (ay)")
        print("   bare Swift echo, 4 MiB there and back          p50 \(echoP50.milli)")
        print("   OpenURL → broker → app, small answer back      p50 \(openP50.milli)")
        print("   same, the app returns the annotation            p50 \(echoedP50.milli)")
        print("   ratio p50 4 MiB OpenURL / bare echo = \(String(format: "%.2f", openP50.seconds / echoP50.seconds)) (target ≤ 2; both carry the payload twice: the OpenURL through the bus to the broker and over the app's direct link)")
        print("   ratio p50 4 MiB OpenURL with the annotation returned / bare echo = \(String(format: "%.2f", echoedP50.seconds / echoP50.seconds)) (four crossings against two)")

        // 2. 64 MiB: refused at once, and the broker goes on. Through the library (which knows the
        // broker's limit and sends nothing), and on the raw contract with as much as the options'
        // a{sv} can carry in one D-Bus array (64 MiB less its key), which the broker itself refuses.
        let sixtyFourMiB = DBusValue.bytes([UInt8](repeating: 0x5a, count: 64 << 20))
        let rawMax = DBusValue.bytes([UInt8](repeating: 0x5a, count: (64 << 20) - 64))
        var (library, refusals, sends) = ([Duration](), [Duration](), [Duration]())
        var (libraryAnswer, brokerAnswer) = ("", "")
        for _ in 0..<3 {
            let t0 = clock.now
            _ = try await bare("Take", rawMax)
            let t1 = clock.now
            do {
                _ = try await client.connection.call(
                    Broker1.busName, path: Broker1.objectPath, interface: Broker1.name, method: Broker1.openURL.name,
                    [.string("payload://bench?size"), .vardict([String: DBusValue](CourierKey.annotation(rawMax)))], timeout: .seconds(120))
                brokerAnswer = "answered without an error"
            } catch {
                brokerAnswer = (error as? DBusError)?.name ?? "\(error)"
            }
            let t2 = clock.now
            do {
                _ = try await client.open("payload://bench?size", options: OpenRequestOptions(annotation: sixtyFourMiB))
                libraryAnswer = "answered without an error"
            } catch {
                libraryAnswer = error.code.dbusName
            }
            let t3 = clock.now
            sends.append(t1 - t0)
            refusals.append(t2 - t1)
            library.append(t3 - t2)
        }
        let after = try await client.open("payload://bench?size", options: OpenRequestOptions(annotation: .string("small")))
        let (send, refusal) = (Stats(sends).p50, Stats(refusals).p50)
        print("")
        print("2. 64 MiB annotation (3 rounds, p50)")
        print("   BrokerToolClient.open: \(libraryAnswer) in \(Stats(library).p50.milli) (the client knows the broker's 16 MiB limit; nothing is sent)")
        print("   raw OpenURL with 64 MiB less 64 bytes (all one a{sv} can hold): \(brokerAnswer) in \(refusal.milli)")
        print("   bare one-way send of the same bytes (answer: its size)       \(send.milli)")
        print("   ratio 64 MiB refusal / bare one-way send = \(String(format: "%.2f", refusal.seconds / send.seconds)) (target: at once, not seconds: ≈ 1, the bytes cross the bus once)")
        print("   the next OpenURL: \(after.handled ? "handled" : "not handled") (the broker keeps serving)")
    }
}
