import BusTestSupport
import Foundation
import Testing

/// The rest of the interoperability matrix with `localsendd` across the test's namespaces: plain
/// HTTP both ways (as each side announces it), PINs, a decline by the person at the receiver, a
/// cancel at either end half-way through an upload (slowed with `tc`, see
/// `LocalSendCLIMatrixTests`), and `localsendd` sending to Courier by the fingerprint it learnt
/// from Courier's announcement (it compares fingerprints case-sensitively, in the reference app's
/// uppercase).
extension NamespaceInteropTests {
    static func devices(_ network: Network, socket: String, until alias: String) async throws -> String {
        let control = try NearbyFixture.peer("localsendctl")
        var devices = ""
        for _ in 0..<100 where !devices.contains("\"\(alias)\"") {
            try await Task.sleep(for: .milliseconds(100))
            devices = try await network.fixture.run(control, ["--socket", socket, "devices", "--json"]).output
        }
        return devices
    }

    @Test func courierSendsIntoAPlainHTTPLocalsenddAsItAnnouncesAndWithItsPIN() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, _, downloads) = try await network.startLocalsendd(alias: "Plain B", pin: "2468", extra: ["--unattended", "--no-encryption"])
        let data = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        let file = try network.fixture.file("plain.bin", data)
        let nearby = Products.path("courier-nearby")

        let noPIN = try await network.run(in: network.hosts.a, nearby, ["send", file, "--to-device", "plain b", "--scan-timeout", "2"])
        #expect(noPIN.status == 1 && noPIN.errors.contains("wants its PIN"), "\(noPIN.output)\(noPIN.errors)")
        // By alias: discovery says "protocol": "http", and send speaks it.
        let sent = try await network.run(in: network.hosts.a, nearby, ["send", file, "--to-device", "plain b", "--scan-timeout", "2", "--pin", "2468"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(NearbyFixture.sha256(downloads.appendingPathComponent("plain.bin").path) == NearbyFixture.sha256(file))
        // By address: https:// is refused with a named error, http:// works.
        let tls = try await network.run(in: network.hosts.a, nearby, ["send", file, "--to-device", network.hosts.addressB, "--pin", "2468"])
        #expect(tls.status == 1 && tls.errors.contains("does not speak HTTPS"), "\(tls.errors)")
        let second = try network.fixture.file("second.txt", Data("second\n".utf8))
        let byAddress = try await network.run(in: network.hosts.a, nearby, ["send", second, "--to-device", "http://\(network.hosts.addressB)", "--pin", "2468"])
        #expect(byAddress.status == 0, "\(byAddress.output)\(byAddress.errors)")
        #expect(NearbyFixture.sha256(downloads.appendingPathComponent("second.txt").path) == NearbyFixture.sha256(second))
    }

    @Test func localsenddSendsIntoAPlainHTTPReceiverItHeardAnnounced() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--pin", "13572468", "--plain-http", "--alias", "Courier A"])
        let (_, socket, _) = try await network.startLocalsendd(alias: "Peer B", extra: ["--unattended", "--no-encryption"])
        let devices = try await Self.devices(network, socket: socket, until: "Courier A")
        #expect(devices.contains("\"protocol\": \"http\""), "\(devices)")
        let file = try network.fixture.file("plain.txt", Data("sent without TLS\n".utf8))
        let control = try NearbyFixture.peer("localsendctl")
        let sent = try await network.fixture.run(control, ["--socket", socket, "send", file, "--to", "Courier A", "--pin", "13572468", "--wait", "--quiet"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)\n\(receiver.errors)")
        #expect(NearbyFixture.sha256(network.fixture.inbox().appendingPathComponent("plain.txt").path) == NearbyFixture.sha256(file))
        #expect(receiver.errors.contains("declared, \(network.hosts.addressB)) admitted by pin"), "without TLS no fingerprint is proven: \(receiver.errors)")
    }

    @Test func localsenddSendsToCourierByTheFingerprintItLearntFromTheAnnouncement() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--pin", "97531864", "--alias", "Courier A"])
        let (_, socket, _) = try await network.startLocalsendd(alias: "Peer B")
        let devices = try await Self.devices(network, socket: socket, until: "Courier A")
        let listed = try await network.run(in: network.hosts.a, Products.path("courier-nearby"), ["list", "--json"])
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])["fingerprint"] as? String
        #expect(ours == ours?.uppercased(), "announced in the reference app's uppercase: \(ours ?? "none")")
        #expect(devices.contains("\"fingerprint\": \"\(ours ?? "?")\""), "\(devices)")
        let control = try NearbyFixture.peer("localsendctl")
        for name in ["first.txt", "second.txt"] {
            let file = try network.fixture.file(name, Data("\(name)\n".utf8))
            let sent = try await network.fixture.run(control, ["--socket", socket, "send", file, "--to", "Courier A", "--pin", "97531864", "--wait", "--quiet"])
            #expect(sent.status == 0, "\(name): \(sent.output)\(sent.errors)\n\(receiver.errors)")
            #expect(NearbyFixture.sha256(network.fixture.inbox().appendingPathComponent(name).path) == NearbyFixture.sha256(file))
        }
    }

    /// The person at `localsendd` declines (`localsendctl reject`): `send` says so.
    @Test func aDeclineAtLocalsenddIsWhatSendSays() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, socket, downloads) = try await network.startLocalsendd(alias: "Peer B", extra: ["--no-unattended"])
        let control = try NearbyFixture.peer("localsendctl")
        let watcher = try network.start(in: network.hosts.b, control, ["--socket", socket, "watch"], name: "localsendctl-watch")
        let file = try network.fixture.file("declined.txt", Data("no thanks\n".utf8))
        let sender = try network.start(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB], name: "sender")
        var rejected: (status: Int32, output: String, errors: String) = (1, "", "")
        for _ in 0..<100 where rejected.status != 0 {
            try await Task.sleep(for: .milliseconds(100))
            rejected = try await network.fixture.run(control, ["--socket", socket, "reject"])
        }
        #expect(rejected.status == 0, "\(rejected.output)\(rejected.errors)\n\(watcher.output)")
        let status = await sender.wait(timeout: .seconds(30))
        #expect(status == 1, "\(sender.output)\(sender.errors)")
        #expect(sender.errors.contains("prepare-upload: the receiver declined"), "\(sender.errors)")
        #expect(!FileManager.default.fileExists(atPath: downloads.appendingPathComponent("declined.txt").path))
    }

    /// The person at `localsendd` cancels (`localsendctl cancel`) half-way through Courier's upload:
    /// localsendd answers the upload 422 (it checks the SHA-256 of the part it took before it
    /// notices the cancel), `send` says what that answer means, and localsendd keeps nothing.
    @Test func aCancelAtLocalsenddInTheMiddleOfAnUploadIsWhatSendSays() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, socket, downloads) = try await network.startLocalsendd(alias: "Peer B")
        try await Self.limitRate(network, of: network.hosts.a, to: "2mbit")   // 3 MB take about 12 s
        let file = try network.fixture.file("long.txt", Self.text(3_000_000))
        let sender = try network.start(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB], name: "sender")
        try await Self.waitForUpload(network, in: network.hosts.b)
        let cancelled = try await network.fixture.run(try NearbyFixture.peer("localsendctl"), ["--socket", socket, "cancel"])
        #expect(cancelled.status == 0, "\(cancelled.output)\(cancelled.errors)")
        let status = await sender.wait(timeout: .seconds(60))
        #expect(status == 1, "\(sender.output)\(sender.errors)")
        #expect(sender.errors.contains("the upload of long.txt: the receiver did not get the file as announced"), "\(sender.errors)")
        #expect(network.fixture.contents(of: downloads).isEmpty, "localsendd kept \(network.fixture.contents(of: downloads))")
    }

    /// The person at `localsendd` cancels its own send (`localsendctl cancel`) half-way through the
    /// upload: localsendd cuts the connection (then posts `cancel`, to a session already ended by
    /// the failed upload), and nothing of the file is kept.
    @Test func aCancelAtLocalsenddAsTheSenderLeavesNothingInTheInbox() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--pin", "86421357", "--no-discovery"])
        let (_, socket, _) = try await network.startLocalsendd(alias: "Peer B")
        try await Self.limitRate(network, of: network.hosts.b, to: "2mbit")
        let file = try network.fixture.file("long.txt", Self.text(3_000_000))
        let control = try NearbyFixture.peer("localsendctl")
        let sender = try network.start(in: network.hosts.b, control, ["--socket", socket, "send", file, "--to", network.hosts.addressA, "--pin", "86421357", "--wait", "--quiet"],
                                       name: "localsendctl-send")
        try await Self.waitForUpload(network, in: network.hosts.a)
        let cancelled = try await network.fixture.run(control, ["--socket", socket, "cancel"])
        #expect(cancelled.status == 0, "\(cancelled.output)\(cancelled.errors)")
        let status = await sender.wait(timeout: .seconds(60))
        #expect(status != 0, "localsendctl reported success: \(sender.output)\(sender.errors)")
        let stopped = "upload of \"long.txt\" from \(network.hosts.addressB) failed: the upload stopped after"
        for _ in 0..<500 where !receiver.errors.contains(stopped) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(receiver.errors.contains(stopped), "\(receiver.errors)")
        try await Self.expectNothingKept(network, receiver: receiver, after: "localsendd's cancel")
    }

    /// The user interrupts `courier nearby send` (SIGINT, as Ctrl-C sends) half-way through an
    /// upload to `localsendd`: `send` stops the upload, asks for the session to be cancelled, says
    /// so, and localsendd keeps nothing of the file.
    @Test func anInterruptedSendStopsTheUploadAndLocalsenddKeepsNothing() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, _, downloads) = try await network.startLocalsendd(alias: "Peer B")
        try await Self.limitRate(network, of: network.hosts.a, to: "2mbit")
        let file = try network.fixture.file("long.txt", Self.text(3_000_000))
        let sender = try network.start(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB], name: "sender")
        try await Self.waitForUpload(network, in: network.hosts.b)
        sender.signal(SIGINT)
        let status = await sender.wait(timeout: .seconds(60))
        #expect(status == 1, "\(sender.output)\(sender.errors)")
        #expect(sender.errors.contains("interrupted during the upload of long.txt: the upload was stopped and the receiver asked to cancel the session"), "\(sender.errors)")
        var kept = network.fixture.contents(of: downloads)
        for _ in 0..<250 where !kept.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
            kept = network.fixture.contents(of: downloads)
        }
        #expect(kept.isEmpty, "localsendd kept \(kept)")
    }
}
