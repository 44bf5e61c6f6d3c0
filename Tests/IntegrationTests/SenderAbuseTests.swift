import BusTestSupport
import Courier
@testable import CourierBroker
import CourierNames
import DBus
import Foundation
import Testing
import CourierTools

/// Abusive callers on a real bus (in-process broker, real dbus-daemon, real app processes): a
/// client flooding the broker is limited without starving anyone else, and a client that calls
/// and vanishes gets no identity it did not have.
@Suite("Broker abuse: floods and vanishing callers", .serialized)
struct SenderAbuseTests {
    @Test func aFloodingClientGetsLimitsExceededWhileAnotherClientIsServed() async throws {
        let fixture = try await BrokerFixture { writer in
            let slow = PythonPeers.path("stress_app.py")
            try writer.write("com.acme.slow", schemes: ["slow"], arguments: [systemPython, slow, "slow", "0.05"])
            let echo = PythonPeers.path("fake_app.py")
            try writer.write("com.acme.echo", schemes: ["echo"], arguments: [systemPython, echo, "echo"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("echo://warm").handled)
        let flood = PythonPeers.path("flood.py")
        let marker = fixture.root.appendingPathComponent("flood-sent").path
        // 120 at once: nearly twice the broker's limit, and under the bus daemon's own limit of 128
        // pending replies per connection (this test's bus config), which would refuse the rest
        // itself with org.freedesktop.DBus.Error.LimitsExceeded before the broker sees them.
        let count = 120
        let flooder = try BackgroundProcess(systemPython, [flood, "slow://x/", "\(count)", marker], environment: fixture.environment, outputIn: fixture.root, name: "flood")
        defer { flooder.kill() }
        // Once all are on the wire, another client's request to another app is served.
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: marker), flooder.exitStatus == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: marker), "\(flooder.errors)")
        let other = try await fixture.client.open("echo://while-flooded")
        #expect(other.handled && other.bundleID == "com.acme.echo")
        // The flood is still being worked through (64 admitted × 50 ms in the slow app) when the
        // other client's answer is back: it did not wait behind the flood.
        #expect(flooder.exitStatus == nil)

        #expect(await flooder.wait() == 0, "\(flooder.errors)")
        let data = Data(flooder.output.split(separator: "\n").last.map(String.init)?.utf8 ?? "".utf8)
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(flooder.output) \(flooder.errors)")
        let ok = result["ok"] as? Int ?? -1
        let limited = result["limited"] as? Int ?? -1
        #expect(ok >= SenderQuota.defaultLimit, "\(result)")
        #expect(limited > 0, "\(result)")
        #expect(ok + limited == count, "\(result)")
        #expect((result["other"] as? [Any])?.isEmpty == true, "\(result)")
        let message = result["message"] as? String ?? ""
        #expect(message.contains("requests in flight") && message.contains("--max-requests-per-sender \(SenderQuota.defaultLimit)"), "\(message)")
        // Limited, not cut off: once its answers are in, the same client is served again.
        #expect(result["after"] as? String == "handled", "\(result)")
        // The broker keeps serving, and has forgotten the flooder.
        #expect(try await fixture.client.open("echo://after-the-flood").handled)
        #expect(try await fixture.client.canOpen("slow://x"))
        #expect(await settles { fixture.service.trackedCallers.quota == 0 })
    }

    @Test func courierdTakesItsLimitFromMaxRequestsPerSender() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-flood-\(UUID().uuidString.prefix(8))")
        let manifests = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let slow = PythonPeers.path("stress_app.py")
        try BrokerFixture.ManifestWriter(folder: manifests).write("com.acme.slow", schemes: ["slow"], arguments: [systemPython, slow, "slow", "0.05"])
        let bus = try PrivateBus()
        defer { bus.stop() }
        let environment = bus.environment(homesIn: root)
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--manifests", manifests.path, "--no-desktop-entries", "--max-requests-per-sender", "3"],
                                               environment: environment, outputIn: root, client: client)
        defer { courierd.kill() }
        let flood = PythonPeers.path("flood.py")
        let run = try await BackgroundProcess(systemPython, [flood, "slow://x/", "12", root.appendingPathComponent("sent").path],
                                              environment: environment, outputIn: root, name: "flood").wait()
        #expect(run == 0)
        let output = (try? String(contentsOfFile: root.appendingPathComponent("flood.out").path, encoding: .utf8)) ?? ""
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect(result["ok"] as? Int == 3, "\(result)")
        #expect(result["limited"] as? Int == 9, "\(result)")
        #expect((result["message"] as? String)?.contains("--max-requests-per-sender 3") == true, "\(result)")
        #expect(result["after"] as? String == "handled", "\(result)")
        // The first refusal of the burst is logged, not all nine.
        let refusals = courierd.errors.split(separator: "\n").filter { $0.contains("requests in flight") }
        #expect(refusals.count == 1, "\(courierd.errors)")
    }

    @Test func aCallerThatDisconnectsRightAfterCallingGetsNoIdentity() async throws {
        let fixture = try await BrokerFixture { writer in
            let recorder = PythonPeers.path("record_app.py")
            try writer.write("com.acme.recorder", schemes: ["record"], arguments: [systemPython, recorder, "record"])
            try writer.write("com.acme.hitter", schemes: ["hit"], arguments: [systemPython, recorder, "hit"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("record://warm").handled)
        // Plain clients: call, close the connection, never read the answer.
        let script = PythonPeers.path("hit_and_run.py")
        let run = try await fixture.run(systemPython, [script, "record://gone/", "20"])
        #expect(run.status == 0, "\(run.error)")
        // An app Courier launched: sends OpenURL and exits before checking in; its own launch fails.
        await #expect(throws: CourierError.self) { try await fixture.client.open("hit://go") }

        let seenFile = fixture.dataHome.appendingPathComponent("courier/containers/com.acme.recorder/seen.txt").path
        let seen = { ((try? String(contentsOfFile: seenFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        func sources() -> [String: String] {
            var sources: [String: String] = [:]
            for line in seen() {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                sources[parts[0]] = parts.count > 1 ? parts[1] : "?"
            }
            return sources
        }
        // The odd calls expected no reply, so they are delivered whatever their caller does; an even
        // caller waited and left, so its request is delivered or, when the broker saw it leave while
        // the request was still queued, withdrawn — never lost otherwise.
        let noReply = (0..<20).filter { $0 % 2 == 1 }.map { String(format: "record://gone/%03d", $0) }
        #expect(await settles { let s = sources(); return noReply.allSatisfy { s[$0] != nil } && s["record://from-hitter"] != nil }, "\(seen())")
        #expect(await settles { fixture.service.trackedCallers.pids <= 1 && fixture.service.trackedCallers.quota == 0 })
        let sources = sources()
        // Every vanished plain client that was delivered: no source application ("-" is the empty string).
        for n in 0..<20 {
            let url = String(format: "record://gone/%03d", n)
            if n % 2 == 1 || sources[url] != nil { #expect(sources[url] == "-", "\(sources)") }
        }
        // The app that called and vanished: its own bundle id or nothing — never anyone else's.
        #expect(["-", "com.acme.hitter"].contains(sources["record://from-hitter"] ?? "missing"), "\(sources)")
        // Nothing about the vanished callers stays behind (no cached pid a later process could inherit;
        // the settling above waited for that). The test's own client is still connected: its pid may stay cached.
        #expect(try await fixture.client.open("record://still-serving").handled)
    }

    /// Polls `condition` for up to 10 s (an answer that is due, not a timing bound).
    private func settles(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<500 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}
