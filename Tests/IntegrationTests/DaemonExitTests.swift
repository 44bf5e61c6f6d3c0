import BusTestSupport
import Courier
import Foundation
import Testing
import CourierTools

/// courierd ends on SIGTERM without waiting for the desktop sync: with a 5,000-scheme manifest the
/// sync takes seconds (`courier-bench lifecycle`, section 3, times the exit), and a session that
/// logs out must not wait for it.
@Suite("courierd exit (bus)", .serialized)
struct DaemonExitTests {
    @Test func sigtermEndsTheDaemonBeforeTheDesktopSyncIsWaitedFor() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("exit", isDirectory: true)
        let manifests = root.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: manifests)
            .write("com.acme.many", schemes: (0..<5000).map { String(format: "many%04d", $0) }, arguments: ["/bin/true"])
        var environment = bus.environment(homesIn: root)
        environment["COURIER_DESKTOP_ENTRIES"] = "1"
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--manifests", manifests.path, "--log-level", "info"], environment: environment, outputIn: root, client: client)
        defer { courierd.kill() }
        #expect(await client.brokerIsRunning(), "\(courierd.errors)")
        kill(courierd.pid, SIGTERM)
        let status = await courierd.wait(timeout: .seconds(120))
        #expect(status == 0, "\(courierd.errors)")
        // The order of events: the signal, then the exit — no desktop sync finished after the signal.
        let lines = courierd.errors.split(separator: "\n")
        let signalled = try #require(lines.firstIndex { $0.contains("signal 15: closing the bus connection") }, "\(courierd.errors)")
        let after = lines[signalled...]
        #expect(!after.contains { $0.contains("desktop entries: wrote") }, "\(after)")
        #expect(after.contains { $0.contains("courierd exits without waiting for the desktop entries") }, "\(after)")
    }
}
