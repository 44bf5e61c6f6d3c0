import Courier
import CourierProcess
import Foundation
import Testing
import CourierTools

/// courierd stopped by SIGTERM or SIGINT (a session ending, systemd, Ctrl-C) exits normally with
/// status 0 — atexit work runs, including LeakSanitizer's report in scripts/asan-run — and the bus
/// name is free for the next broker.
@Suite("Broker termination", .serialized)
struct BrokerTerminationTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func courierdExitsZeroOnATerminationSignal(_ signal: Int32) async throws {
        let daemon = try BrokerCrashFaultTests.Daemon { writer in try writer.todolist() }
        defer { daemon.tearDown(marker: "courier-termination-test-no-apps") }
        let client = BrokerToolClient(connection: try daemon.bus.connect())
        defer { client.connection.close() }
        try await daemon.start(client)
        #expect(try await client.open("todolist://www.acme.com?Before%20the%20signal").handled)
        let courierd = try #require(daemon.courierd)
        courierd.signal(signal)
        let termination = await courierd.wait(timeout: .seconds(20))
        if termination != nil { daemon.courierd = nil }
        let log = (try? String(contentsOfFile: daemon.log, encoding: .utf8)) ?? ""
        #expect(termination != nil, "courierd still runs 20 s after signal \(signal): \(log)")
        #expect(termination == .exited(0), "courierd ended with \(termination.map { "\($0)" } ?? "nothing") after signal \(signal) (expected exit 0): \(log)")
        var released = false
        for _ in 0..<100 where !released {   // the bus notices the closed socket on its own schedule
            released = await !client.brokerIsRunning()
            if !released { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(released, "org.courier.Broker still has an owner after courierd exited")
    }
}
