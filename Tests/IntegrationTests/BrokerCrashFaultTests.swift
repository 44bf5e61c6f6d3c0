import BusTestSupport
import Courier
import CourierNames
import CourierProcess
import DBus
import Foundation
import Testing
import CourierTools

/// The real `courierd` process SIGKILLed mid-launch and mid-delivery: the caller gets an error
/// (the bus answers for the vanished broker), never a hang, and a restarted broker serves.
@Suite("Broker killed", .serialized)
struct BrokerCrashFaultTests {
    /// A private bus, manifests, and a `courierd` that can be killed and started again.
    final class Daemon: @unchecked Sendable {
        let bus: PrivateBus
        let manifests: URL
        let environment: [String: String]
        var courierd: ChildProcess?
        let log: String

        /// `desktopEntries`: let courierd write desktop entries and `mimeapps.list` (in the private XDG folders).
        init(desktopEntries: Bool = false, configure: (BrokerFixture.ManifestWriter) throws -> Void) throws {
            bus = try PrivateBus()
            let root = bus.directory.appendingPathComponent("daemon", isDirectory: true)
            manifests = root.appendingPathComponent("manifests", isDirectory: true)
            try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
            var environment = bus.environment(homesIn: root)
            environment["COURIER_DESKTOP_ENTRIES"] = desktopEntries ? "1" : "0"
            self.environment = environment
            log = root.appendingPathComponent("courierd.log").path
            try configure(BrokerFixture.ManifestWriter(folder: manifests))
        }

        /// Starts courierd (with `extra` arguments) and waits (bounded) until it owns org.courier.Broker.
        func start(_ client: BrokerToolClient, extra: [String] = []) async throws {
            // The shared Spawner, not Foundation.Process: killing and reaping must not depend on a run loop.
            let argv = [Products.path("courierd"), "--manifests", manifests.path, "--log-level", "warning", "--launch-timeout", "20"] + extra
            courierd = try Spawner.start(path: argv[0], arguments: argv, environment: environment, standardError: .file(log, append: true))
            for _ in 0..<400 {
                if await client.brokerIsRunning() { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            let log = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(await client.brokerIsRunning(), "courierd did not take its bus name: \(log)")
        }

        func kill9() {
            courierd?.kill()
            courierd = nil
        }

        /// Kills courierd and every process started with `marker` in its command line.
        func tearDown(marker: String) {
            kill9()
            for pid in Self.pids(containing: marker) { kill(pid, SIGKILL) }
            bus.stop()
        }

        static func pids(containing marker: String) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                return String(decoding: data, as: UTF8.self).contains(marker)
            }
        }
    }

    @Test func brokerKilledMidLaunchAnswersTheCallerAndARestartedBrokerServes() async throws {
        let marker = "courier-fault-\(UUID().uuidString.prefix(8))"
        let daemon = try Daemon { writer in
            try writer.todolist()
            // Never checks in (`; :` keeps the shell, and so the marker, from exec-ing into sleep): the broker is still waiting for it when it is killed.
            try writer.write("com.acme.hang", schemes: ["hang"], arguments: ["/bin/sh", "-c", "sleep 20; :", marker])
        }
        defer { daemon.tearDown(marker: marker) }
        let client = BrokerToolClient(connection: try daemon.bus.connect())
        defer { client.connection.close() }
        try await daemon.start(client)
        let pending = Task { try await client.open("hang://x") }
        for _ in 0..<1000 {
            if !Daemon.pids(containing: marker).isEmpty { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!Daemon.pids(containing: marker).isEmpty, "the app was not launched: \((try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? "")")
        daemon.kill9()
        let error = await #expect(throws: CourierError.self) { try await pending.value }
        #expect(error != nil)
        try await daemon.start(client)
        #expect(try await client.open("todolist://www.acme.com?After%20the%20crash").handled)
    }

    @Test func brokerKilledMidDeliveryAnswersTheCallerAndARestartedBrokerServes() async throws {
        let marker = "courier-fault-\(UUID().uuidString.prefix(8))"
        let daemon = try Daemon { writer in
            try writer.todolist()
            let script = PythonPeers.path("stress_app.py")
            try writer.write("com.acme.slow", schemes: ["slow"], arguments: [systemPython, script, "slow", "3", marker])
        }
        defer { daemon.tearDown(marker: marker) }
        let client = BrokerToolClient(connection: try daemon.bus.connect())
        defer { client.connection.close() }
        try await daemon.start(client)
        let pending = Task { try await client.open("slow://x") }
        // Delivery is under way once the app owns its name (it answers only after 3 s).
        for _ in 0..<1000 {
            if ((try? await client.connection.nameOwner(of: BusName("com.acme.slow"))) ?? nil) != nil { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Checked in and handed the URL: the broker shows it active (the app holds the answer 3 s).
        let ps = Products.path("courier")
        #expect(await AppControlTests.eventuallyAsync {
            let rows = (try? await runProduct("courier", ["ps", "--json"], daemon.environment, executable: ps)).flatMap { try? JSONSerialization.jsonObject(with: Data($0.output.utf8)) as? [[String: Any]] }
            return rows?.contains { $0["bundle_id"] as? String == "com.acme.slow" && $0["state"] as? String == "active" } == true
        })
        daemon.kill9()
        let error = await #expect(throws: CourierError.self) { try await pending.value }
        #expect(error != nil)
        try await daemon.start(client)
        #expect(try await client.open("todolist://www.acme.com?After%20the%20crash").handled)
    }
}
