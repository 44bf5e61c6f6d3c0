import BusTestSupport
@testable import CourierNearby
import Crypto
import Foundation
import Testing
import CourierTools

/// A private bus with a real `courierd` (the todolist app registered, launched by the broker when a
/// file arrives), and `courier nearby` processes beside it, everything in one temporary folder:
/// XDG homes and `HOME` (so the LocalSend peers keep their certificates there too).
final class NearbyFixture: @unchecked Sendable {
    static let todolist = "com.acme.todolist"

    let bus: PrivateBus
    let root: URL
    let environment: [String: String]
    let client: BrokerToolClient
    /// The broker (its log is its standard error).
    let courierd: BackgroundProcess
    private var processes: [BackgroundProcess] = []
    private var cleanups: [() -> Void] = []

    /// `prepare` runs on the fixture's root folder before courierd starts (a test that mounts a
    /// file system as the data home, for one, or adds a manifest to `manifests`); courierd logs
    /// at `brokerLogLevel`.
    init(brokerLogLevel: String = "warning", beforeBroker prepare: (URL) throws -> Void = { _ in }) throws {
        bus = try PrivateBus()
        root = bus.directory.appendingPathComponent("nearby", isDirectory: true)
        let manifests = root.appendingPathComponent("manifests", isDirectory: true)
        let home = root.appendingPathComponent("home", isDirectory: true)
        for folder in [manifests, home] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let source = Self.packageRoot.appendingPathComponent("Schemes/com.acme.todolist.plist")
        guard var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: source), format: nil) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        plist["CourierLaunchArguments"] = [Products.path("todolist")]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: manifests.appendingPathComponent("com.acme.todolist.plist"))
        var environment = bus.environment(homesIn: root)
        environment["HOME"] = home.path
        environment["COURIER_LOG_LEVEL"] = "info"
        environment["PATH"] = "/usr/local/bin:/usr/bin:/bin"
        // The peers skip certificate verification on purpose (LocalSend certificates are
        // self-signed), but Python's requests lets a CA bundle named in the environment override
        // that; and no proxy may carry loopback traffic elsewhere.
        for name in ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
            environment[name] = nil
        }
        self.environment = environment
        try prepare(root)
        client = BrokerToolClient(connection: try bus.connect())
        courierd = try BackgroundProcess(Products.path("courierd"), ["--manifests", manifests.path, "--log-level", brokerLogLevel],
                                         environment: environment, outputIn: root, name: "courierd")
        processes.append(courierd)
    }

    /// Waits (bounded) until courierd owns its name.
    func waitForBroker() async throws {
        for _ in 0..<500 where !(await client.brokerIsRunning()) {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(await client.brokerIsRunning(), "courierd did not take org.courier.Broker")
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The LocalSend peers' programs (scripts/nearby-peers installs them).
    static func peer(_ name: String) throws -> String {
        let folder = ProcessInfo.processInfo.environment["COURIER_NEARBY_PEERS"]
            ?? packageRoot.appendingPathComponent(".build/nearby-peers").path
        let path = folder + "/bin/" + name
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing: run scripts/nearby-peers (it installs localsend-cli and localsendd from PyPI)")
        return path
    }

    /// A `courier nearby receive` in the background, on loopback, on a port the kernel picks (tests
    /// run in parallel: none may take LocalSend's fixed 53317 on the shared loopback); returns it
    /// and its port (read from its start-up line).
    func startReceiver(_ arguments: [String], name: String = "receiver") async throws -> (BackgroundProcess, Int) {
        let receiver = try BackgroundProcess(Products.path("courier-nearby"), ["receive", "--bind", "127.0.0.1", "--port", "0", "--no-discovery"] + arguments,
                                             environment: environment, outputIn: root, name: name)
        processes.append(receiver)
        for _ in 0..<1000 {
            if let range = receiver.errors.range(of: #"on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let port = Int(receiver.errors[range].split(separator: ":").last ?? "") ?? 0
                return (receiver, port)
            }
            if receiver.exitStatus != nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("courier nearby receive did not start: \(receiver.errors)")
        throw CancellationError()
    }

    /// Runs a program to completion (at most 120 s) with the fixture's environment.
    func run(_ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        let child = try BackgroundProcess(executable, arguments, environment: environment.merging(extraEnvironment) { $1 },
                                          outputIn: root, name: "run-\(UUID().uuidString.prefix(8))")
        if await child.wait(timeout: .seconds(120)) == nil { child.kill() }
        return (await child.wait(), child.output, child.errors)
    }

    func nearby(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await run(Products.path("courier-nearby"), arguments)
    }

    func inbox(_ bundleID: String = NearbyFixture.todolist) -> URL {
        root.appendingPathComponent("data/courier/containers/\(bundleID)/Documents/Inbox", isDirectory: true)
    }

    var staging: URL { root.appendingPathComponent("data/courier/nearby-staging", isDirectory: true) }

    func contents(of folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Writes a file in the fixture's folder and returns its path.
    func file(_ name: String, _ data: Data) throws -> String {
        let url = root.appendingPathComponent("outbox", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try data.write(to: url.appendingPathComponent(name))
        return url.appendingPathComponent(name).path
    }

    static func sha256(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).hex
    }

    /// SIGTERM, up to 5 s to end, then SIGKILL (for a process the test started itself).
    static func stop(_ process: BackgroundProcess) {
        process.signal(SIGTERM)
        for _ in 0..<250 where process.exitStatus == nil { Thread.sleep(forTimeInterval: 0.02) }
        process.kill()
    }

    /// Runs at tear-down once the processes have stopped, before the folder is removed.
    func onTearDown(_ cleanup: @escaping () -> Void) {
        cleanups.append(cleanup)
    }

    func tearDown() {
        for process in processes.reversed() {
            process.signal(SIGTERM)
        }
        for process in processes.reversed() where process.exitStatus == nil {
            Thread.sleep(forTimeInterval: 0.05)
            process.kill()
        }
        for process in processes { for _ in 0..<100 where process.exitStatus == nil { Thread.sleep(forTimeInterval: 0.01) } }
        client.connection.close()
        for cleanup in cleanups.reversed() { cleanup() }
        bus.stop()
    }
}

extension NearbyFixture {
    /// Has `courier nearby trust` the fingerprint PyPI's `localsend-cli` declares (it makes its
    /// certificate on first use), so that it may send to a `--trusted-only` receiver; returns the
    /// program's path.
    func trustLocalsendCLI() async throws -> String {
        let cli = try Self.peer("localsend-cli")
        let fingerprint = try await run(try Self.peer("python"), ["-c", "from localsend_cli.crypto import get_fingerprint; print(get_fingerprint())"])
        try #require(fingerprint.status == 0, "\(fingerprint.errors)")
        let trusted = try await nearby(["trust", fingerprint.output.split(separator: "\n").last.map(String.init) ?? "", "--alias", "the cli"])
        try #require(trusted.status == 0, "\(trusted.errors)")
        return cli
    }
}
