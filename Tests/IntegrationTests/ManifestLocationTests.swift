import BusTestSupport
import Courier
import CourierTools
import CourierProcess
import Foundation
import Testing

/// `courier register` and a real `courierd` agree on where manifests live, whatever the
/// environment (`COURIER_MANIFEST_PATH`, the XDG variables): a registration survives a broker
/// restart, and `courier unregister` finds and deletes the copy it installed.
@Suite("register and the broker agree on the manifest folders", .serialized)
struct ManifestLocationTests {
    enum Setting: String, CaseIterable, Sendable { case manifestPath, xdgDataHome }

    @Test(arguments: Setting.allCases)
    func aRegistrationSurvivesARestartAndUnregisterDeletesIt(_ setting: Setting) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let root = bus.directory.appendingPathComponent("location", isDirectory: true)
        var environment = bus.environment(homesIn: root)
        environment["COURIER_DESKTOP_ENTRIES"] = "0"
        let installed: URL
        switch setting {
        case .manifestPath:
            let first = root.appendingPathComponent("apps-first", isDirectory: true)
            environment["COURIER_MANIFEST_PATH"] = first.path + ":" + root.appendingPathComponent("apps-second").path
            installed = first
        case .xdgDataHome:
            installed = URL(fileURLWithPath: environment["XDG_DATA_HOME"]!).appendingPathComponent("courier/manifests", isDirectory: true)
        }
        let source = root.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: source).write("com.acme.echo", schemes: ["echo"], arguments: ["/bin/true"])

        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        var broker = try await startBroker(environment, client)
        let register = try await runProduct("courier", ["register", source.appendingPathComponent("com.acme.echo.plist").path], environment)
        #expect(register.status == 0, "\(register)")
        #expect(FileManager.default.fileExists(atPath: installed.appendingPathComponent("com.acme.echo.plist").path), "\(register)")

        // A new broker of the same environment reads the copy.
        broker.kill()
        _ = broker.wait()
        // The bus releases a dead broker's name a moment after its exit (dbus-broker is slower at
        // it): until then the new broker would see its name taken and exit, as it should.
        for _ in 0..<400 where await client.brokerIsRunning() { try await Task.sleep(for: .milliseconds(25)) }
        broker = try await startBroker(environment, client)
        defer { broker.kill() }
        let listed = try await client.listApplications().compactMap { $0["bundle-id"]?.stringValue }
        #expect(listed.contains("com.acme.echo"), "\(listed)")

        let unregister = try await runProduct("courier", ["unregister", "com.acme.echo"], environment)
        #expect(unregister.status == 0, "\(unregister)")
        #expect(!FileManager.default.fileExists(atPath: installed.appendingPathComponent("com.acme.echo.plist").path))
        #expect(FileManager.default.fileExists(atPath: source.appendingPathComponent("com.acme.echo.plist").path), "the user's own file is left alone")
    }

    /// `courierd` with no `--manifests`: its folders come from the environment alone.
    private func startBroker(_ environment: [String: String], _ client: BrokerToolClient) async throws -> ChildProcess {
        let argv = [Products.path("courierd"), "--log-level", "warning"]
        let courierd = try Spawner.start(path: argv[0], arguments: argv, environment: environment)
        for _ in 0..<400 {
            if await client.brokerIsRunning() { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(await client.brokerIsRunning(), "courierd did not take its bus name")
        return courierd
    }
}
