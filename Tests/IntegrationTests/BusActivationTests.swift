import BusTestSupport
import Courier
import CourierTools
import DBus
import Foundation
import Testing

/// The broker starts on demand: a D-Bus service file for org.courier.Broker, and the real `courierd`.
@Suite("Broker bus activation", .enabled(if: PrivateBus.supportsActivation, "bus activation needs systemd under dbus-broker"))
struct BusActivationTests {
    @Test func theFirstCallStartsCourierdThroughTheBus() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-activation-\(UUID().uuidString.prefix(8))")
        let services = root.appendingPathComponent("services")
        let manifests = root.appendingPathComponent("manifests")
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try BrokerFixture.ManifestWriter(folder: manifests).todolist()
        try """
            [D-BUS Service]
            Name=org.courier.Broker
            Exec=/usr/bin/env XDG_DATA_HOME=\(data.path) XDG_CONFIG_HOME=\(root.path)/config \(Products.path("courierd")) --manifests \(manifests.path) --started-by=bus-activation --log-level=warning

            """.write(to: services.appendingPathComponent("org.courier.Broker.service"), atomically: true, encoding: .utf8)
        let bus = try PrivateBus(servicesDirectory: services)
        defer { bus.stop() }
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        #expect(await client.brokerIsRunning() == false)
        let result = try await client.open("todolist://www.acme.com?Activated#today")
        #expect(result.handled && result.bundleID == "com.acme.todolist")
        let status = try await client.status()
        #expect(status["started-by"]?.stringValue == "bus-activation")
        for app in try await client.listApplications() { if let pid = app["pid"]?.uint32Value { kill(Int32(pid), SIGKILL) } }
        if let pid = status["pid"]?.uint32Value { kill(Int32(pid), SIGKILL) }
    }
}
