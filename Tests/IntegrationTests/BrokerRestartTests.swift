import BusTestSupport
import Courier
import CourierBroker
import DBus
import Foundation
import CourierInbox
import CourierNames
import CourierProtocol
import Logging
import Testing

/// After the broker restarts, the app it launched before still owns
/// its name; the new broker adopts it (it passes the same receiver check), the next URL goes to it,
/// and a second instance of the app ends with one line and a non-zero status, never a trap. The app
/// attaches its direct link to the new broker.
@Suite("Broker restart on a private bus", .serialized)
struct BrokerRestartTests {
    @Test func aRestartedBrokerAdoptsTheRunningAppAndASecondInstanceEndsWithOneLine() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?Before").handled)
        let appPID = try #require(fixture.launcher.pids.first)

        // The broker goes away; its app keeps running and keeps its name.
        let (restarted, launcher) = try await fixture.restartBroker()
        defer {
            restarted.stop()
            restarted.connection.close()
        }
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20the%20restart").handled)
        #expect(launcher.count == 0)
        #expect(kill(appPID, 0) == 0)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["Before", "After the restart"])
        // The app checked in again with the new broker and attached a new direct link to it (the
        // old one went with the old broker).
        #expect(fixture.service.directlyLinked.isEmpty)
        // When it does not, the app's own output says why ("no direct link: …").
        #expect(await eventually { restarted.directlyLinked.count == 1 }, "\(fixture.launcher.logTail(bundleID: "com.acme.todolist", lines: 20))")

        // A second instance started by hand: one line naming the holder's pid, status 1.
        var environment = fixture.environment
        environment["COURIER_BUNDLE_ID"] = "com.acme.todolist"
        let second = try BackgroundProcess(Products.path("todolist"), ["run"], environment: environment, outputIn: fixture.root, name: "second")
        defer { second.kill() }
        let status = await second.wait(timeout: .seconds(20))
        #expect(status == 1, "\(String(describing: status))")
        let lines = second.errors.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("pid \(appPID)") == true, "\(second.errors)")
        #expect(try await fixture.client.open("todolist://www.acme.com?Still%20served").handled)
        #expect(launcher.count == 0)
    }

    /// The todolist's manifest written outside the fixture's manifest folder; its path.
    static func todolistOutsideTheFolders(_ fixture: BrokerFixture) throws -> String {
        let elsewhere = fixture.root.appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try BrokerFixture.ManifestWriter(folder: elsewhere).todolist()
        return elsewhere.appendingPathComponent("com.acme.todolist.plist").path
    }

    /// A registration made over the bus by another process (`gdbus`, as a desktop integrator
    /// would) outlives the broker: the next broker routes the app, admits the running instance
    /// when it checks in again (it is not an impostor of itself), and still refuses another
    /// process that claims the app.
    @Test func anAppRegisteredOverTheBusIsStillItselfAfterARestart() async throws {
        let fixture = try await BrokerFixture(persistentState: true)
        defer { fixture.tearDown() }
        let manifest = try Self.todolistOutsideTheFolders(fixture)
        let gdbus = try await fixture.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", CourierBusNames.broker, "--object-path", CourierBusNames.brokerPath,
            "--method", "\(CourierBusNames.brokerInterface).\(Broker1.registerManifest.name.rawValue)", manifest,
        ])
        #expect(gdbus.status == 0 && gdbus.output.contains("com.acme.todolist"), "\(gdbus.output) \(gdbus.error)")
        #expect(try await fixture.client.open("todolist://www.acme.com?Before").handled)
        let appPID = try #require(fixture.launcher.pids.first)
        #expect(await eventually { fixture.service.directlyLinked.count == 1 })

        let (restarted, launcher) = try await fixture.restartBroker()
        defer {
            restarted.stop()
            restarted.connection.close()
        }
        let listed = try await fixture.client.listApplications().first { $0["bundle-id"]?.stringValue == "com.acme.todolist" }
        #expect(listed?["path"]?.stringValue == manifest)
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20the%20restart").handled)
        #expect(launcher.count == 0)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["Before", "After the restart"])
        // Its check-in with the new broker was accepted: it attached a direct link.
        // When it does not, the app's own output says why ("no direct link: …").
        #expect(await eventually { restarted.directlyLinked.count == 1 }, "\(fixture.launcher.logTail(bundleID: "com.acme.todolist", lines: 20))")

        // Another process that takes the name once the app has gone is refused.
        kill(appPID, SIGKILL)
        let (impostor, out) = try ReceiverVerificationTests.impostor(fixture, waitForName: true)
        defer { impostor.kill() }
        _ = try await ReceiverVerificationTests.waitForFile(out.appendingPathComponent("owned.txt"))
        let checkIn = ReceiverVerificationTests.read(out, "checkin.txt") ?? ""
        #expect(checkIn.hasPrefix("org.courier.Error.NotPermitted"), "\(checkIn)")
    }

    /// With no broker running, `courier unregister` of an app registered over the bus forgets the
    /// saved registration too: the next broker does not register it again.
    @Test func anAppRegisteredOverTheBusIsUnregisteredWithoutABroker() async throws {
        let fixture = try await BrokerFixture(persistentState: true)
        defer { fixture.tearDown() }
        #expect(try await fixture.client.registerManifest(atPath: Self.todolistOutsideTheFolders(fixture)) == "com.acme.todolist")
        fixture.service.stop()
        fixture.service.connection.close()
        for _ in 0..<200 where await fixture.client.brokerIsRunning() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(await !fixture.client.brokerIsRunning())

        let unregister = try await fixture.run(Products.path("courier-tool"), ["unregister", "com.acme.todolist"])
        #expect(unregister.status == 0, "\(unregister.output) \(unregister.error)")
        let (restarted, _) = try await fixture.restartBroker()
        defer {
            restarted.stop()
            restarted.connection.close()
        }
        #expect(try await fixture.client.listApplications().isEmpty)
        // Nothing left to unregister: said so, with the status of an unknown app.
        restarted.stop()
        restarted.connection.close()
        for _ in 0..<200 where await fixture.client.brokerIsRunning() { try await Task.sleep(for: .milliseconds(50)) }
        let again = try await fixture.run(Products.path("courier-tool"), ["unregister", "com.acme.todolist"])
        #expect(again.status == 3 && again.error.contains("registrations.json"), "\(again.status) \(again.error)")
    }
}
