import BusTestSupport
import Foundation
import Testing

/// Both directions across a network made by the test (two namespaces, a veth pair): `courier
/// nearby send` into `localsend-cli receive` and into `localsendd`, `localsendd` (v2.2: mutual TLS,
/// PIN) into a Courier app's Inbox, and multicast discovery each way. The peers announce by
/// multicast, so they never run outside the test's namespaces. Skipped, saying why, where
/// namespaces cannot be made.
@Suite("Nearby: across namespaces with LocalSend peers", .serialized)
struct NamespaceInteropTests {
    /// The fixture (bus, courierd, todolist) and the two hosts; removed in `tearDown`.
    final class Network: @unchecked Sendable {
        let fixture: NearbyFixture
        let hosts: TestHosts
        private var processes: [BackgroundProcess] = []

        /// The network, or the test skipped with the reason namespaces cannot be made.
        static func make() async throws -> Network {
            switch await TestHosts.make() {
            case .success(let hosts): return try await Network(hosts: hosts)
            case .failure(let why): try Test.cancel("skipped: \(why)")
            }
        }

        private init(hosts: TestHosts) async throws {
            self.hosts = hosts
            do {
                fixture = try NearbyFixture()
            } catch {
                hosts.remove()
                throw error
            }
            try await fixture.waitForBroker()
        }

        func start(in namespace: String, _ executable: String, _ arguments: [String], name: String) throws -> BackgroundProcess {
            let process = try hosts.start(in: namespace, executable, arguments, environment: fixture.environment, outputIn: fixture.root, name: name)
            processes.append(process)
            return process
        }

        func run(in namespace: String, _ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
            let command = IsolatedLoopback.enter(namespace, executable, arguments)
            return try await fixture.run(command.executable, command.arguments)
        }

        /// `courier nearby receive` in host A on the default port; waits for its start-up line.
        func startReceiver(_ arguments: [String]) async throws -> BackgroundProcess {
            let receiver = try start(in: hosts.a, Products.path("courier-nearby"), ["receive"] + arguments, name: "receiver")
            for _ in 0..<500 where !receiver.errors.contains("receiving as") && receiver.exitStatus == nil {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(receiver.errors.contains("receiving as"), "\(receiver.errors)")
            return receiver
        }

        /// `localsendd` in host B, unattended, its control socket in the fixture's folder.
        /// `extra`: `--no-encryption` (plain HTTP), `--no-unattended` (declines unless a control
        /// client is attached), …
        func startLocalsendd(alias: String, pin: String? = nil, extra: [String] = ["--unattended"]) async throws -> (process: BackgroundProcess, socket: String, downloads: URL) {
            let socket = fixture.root.appendingPathComponent("localsendd.sock").path
            let downloads = fixture.root.appendingPathComponent("localsendd-downloads", isDirectory: true)
            var arguments = ["--port", "53317", "--socket", socket, "--alias", alias, "--download-dir", downloads.path, "--log-level", "debug"] + extra
            if let pin { arguments += ["--pin", pin] }
            let daemon = try start(in: hosts.b, try NearbyFixture.peer("localsendd"), arguments, name: "localsendd")
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) && daemon.exitStatus == nil {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(FileManager.default.fileExists(atPath: socket), "localsendd did not start: \(daemon.errors)")
            return (daemon, socket, downloads)
        }

        func tearDown() {
            for process in processes.reversed() { process.signal(SIGTERM) }
            for process in processes.reversed() {
                for _ in 0..<100 where process.exitStatus == nil { Thread.sleep(forTimeInterval: 0.02) }
                process.kill()
            }
            fixture.tearDown()
            hosts.remove()
        }
    }

    @Test func courierSendsIntoLocalsendCLIReceive() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let output = network.fixture.root.appendingPathComponent("received", isDirectory: true)
        let receiver = try network.start(in: network.hosts.b, try NearbyFixture.peer("localsend-cli"), ["receive", "--output", output.path, "--clean"], name: "localsend-cli")
        let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
        let file = try network.fixture.file("photo.bin", data)
        // Wait until its server listens (it prints nothing in --clean mode before a file arrives).
        var sent: (status: Int32, output: String, errors: String) = (1, "", "")
        for _ in 0..<100 {
            sent = try await network.run(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", network.hosts.addressB, "--json"])
            if sent.status == 0 || !(sent.output + sent.errors).contains("Connection refused") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.contains("\"sent\":true"), "\(sent.output)")
        #expect(NearbyFixture.sha256(output.appendingPathComponent("photo.bin").path) == NearbyFixture.sha256(file), "\(receiver.output)\(receiver.errors)")
    }

    @Test func localsenddSendsWithItsPINOverMutualTLSAndAWrongPINIsRefused() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--pin", "4711", "--no-discovery"])
        let (_, socket, _) = try await network.startLocalsendd(alias: "Peer B")
        let control = try NearbyFixture.peer("localsendctl")
        let file = try network.fixture.file("list.txt", Data("milk\neggs\n".utf8))

        let wrong = try await network.fixture.run(control, ["--socket", socket, "send", file, "--to", network.hosts.addressA, "--pin", "0000", "--wait", "--quiet"])
        #expect(wrong.status != 0, "\(wrong.output)\(wrong.errors)")
        #expect(network.fixture.contents(of: network.fixture.inbox()).isEmpty)

        // After a wrong PIN, no PIN is checked for a second (the back-off): its passing is what is
        // tested, there is no event to wait on.
        try await Task.sleep(for: .seconds(1.2))
        let right = try await network.fixture.run(control, ["--socket", socket, "send", file, "--to", network.hosts.addressA, "--pin", "4711", "--wait", "--quiet"])
        #expect(right.status == 0, "\(right.output)\(right.errors)")
        let landed = network.fixture.inbox().appendingPathComponent("list.txt").path
        #expect(NearbyFixture.sha256(landed) == NearbyFixture.sha256(file), "\(receiver.errors)")
        // localsendd presented its certificate: the fingerprint in the log line is proven, not declared.
        #expect(receiver.errors.contains("verified, \(network.hosts.addressB)) admitted by pin"), "\(receiver.errors)")
        #expect(receiver.errors.contains("refused: 401 wrong PIN"), "\(receiver.errors)")
    }

    @Test func aPeerInAnotherNamespaceDiscoversTheReceiverAndScanFindsThePeer() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--trusted-only", "--alias", "Courier A"])
        // localsend-cli scan (host B) announces; the receiver answers.
        let scanned = try await network.run(in: network.hosts.b, try NearbyFixture.peer("localsend-cli"), ["scan", "--json", "--timeout", "2"])
        #expect(scanned.output.contains("\"alias\": \"Courier A\""), "\(scanned.output)\(scanned.errors)")
        #expect(scanned.output.contains("\"ip\": \"\(network.hosts.addressA)\""), "\(scanned.output)")
        receiver.signal(SIGTERM)
        _ = await receiver.wait()

        // courier nearby scan (host A) hears localsendd (host B), which answers with POST register.
        _ = try await network.startLocalsendd(alias: "Peer B")
        let found = try await network.run(in: network.hosts.a, Products.path("courier-nearby"), ["scan", "--json", "--timeout", "2"])
        #expect(found.output.contains("\"alias\":\"Peer B\""), "\(found.output)\(found.errors)")
        #expect(found.output.contains("\"address\":\"\(network.hosts.addressB)\""), "\(found.output)")
    }

    @Test func sendByAliasFindsLocalsenddAndChecksItsCertificate() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let (_, _, downloads) = try await network.startLocalsendd(alias: "Peer B")
        let file = try network.fixture.file("report.txt", Data("quarterly\n".utf8))
        let sent = try await network.run(in: network.hosts.a, Products.path("courier-nearby"), ["send", file, "--to-device", "peer b", "--scan-timeout", "2"])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(NearbyFixture.sha256(downloads.appendingPathComponent("report.txt").path) == NearbyFixture.sha256(file))
    }

    /// Protocol v2, section 3.1: an announcement is answered with `POST register` to the announcer,
    /// and by multicast only when that fails. A peer whose announced port is closed (a datagram
    /// from Python's socket module) gets the multicast answer; localsendd, started after the
    /// receiver's own announcements are over, announces and learns of the receiver from its
    /// `register` — the receiver's log names it, and `localsendctl devices` lists it.
    @Test func announcementsAreAnsweredWithPOSTRegisterElseByMulticast() async throws {
        let network = try await Network.make()
        defer { network.tearDown() }
        let receiver = try await network.startReceiver(["--to", NearbyFixture.todolist, "--trusted-only", "--alias", "Courier A"])
        // Past its announcements (0, 0.3 and 1 s): the answers below must not be one of them.
        try await Task.sleep(for: .milliseconds(1500))

        let path = PythonPeers.path("closed_port_announcer.py")
        let closed = try await network.run(in: network.hosts.b, "/usr/bin/python3", [path])
        #expect(closed.output.contains("multicast answer from \(network.hosts.addressA)"), "\(closed.output)\(closed.errors)\n\(receiver.errors)")

        let (_, socket, _) = try await network.startLocalsendd(alias: "Peer B")
        let control = try NearbyFixture.peer("localsendctl")
        var devices = ""
        for _ in 0..<100 where !devices.contains("\"Courier A\"") {
            try await Task.sleep(for: .milliseconds(100))
            devices = try await network.fixture.run(control, ["--socket", socket, "devices", "--json"]).output
        }
        #expect(devices.contains("\"alias\": \"Courier A\""), "\(devices)")
        // The IPv4-mapped address is what localsendd's dual-stack HTTP server records: it learnt of
        // the receiver from the register request, not from a datagram (which would show 10.213.…).
        #expect(devices.contains("\"ip\": \"::ffff:\(network.hosts.addressA)\""), "\(devices)")
        #expect(receiver.errors.contains("answered the announcement of \"Peer B\" with POST register to https://\(network.hosts.addressB):53317"), "\(receiver.errors)")
    }
}
