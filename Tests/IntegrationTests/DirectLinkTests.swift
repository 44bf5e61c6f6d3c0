import BusTestSupport
@testable import Courier
import CourierBroker
import DBus
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The direct broker–app links on a real bus with real app processes: deliveries leave the bus
/// (dbus-monitor, a tool nobody here wrote, is the witness), an admitted app cannot take another
/// app's link, a process that never checked in cannot connect, an app keeps no link to a server
/// that is not the broker, and a lost link leaves the bus path working.
@Suite("Direct broker–app links on a private bus", .serialized)
struct DirectLinkTests {
    /// dbus-monitor on the fixture's bus, watching `org.courier.Application1`; returns once it
    /// has printed its first line (it is then a monitor).
    static func monitor(_ fixture: BrokerFixture) async throws -> BackgroundProcess {
        let monitor = try BackgroundProcess("/usr/bin/dbus-monitor", ["--session", "interface='org.courier.Application1'"],
                                            environment: fixture.environment, outputIn: fixture.root, name: "dbus-monitor-\(UUID().uuidString.prefix(6))")
        #expect(await eventually { !monitor.output.isEmpty })
        return monitor
    }

    /// Returns once everything routed on the bus so far has reached `monitor`: a signal emitted
    /// now is routed after it, so its arrival at the monitor says the earlier messages arrived.
    static func drain(_ monitor: BackgroundProcess, _ fixture: BrokerFixture) async throws {
        let marker = "Drained\(UUID().uuidString.prefix(8))"
        let emit = try await fixture.run("/usr/bin/gdbus", ["emit", "--session", "--object-path", "/", "--signal", "org.courier.Application1.\(marker)"])
        #expect(emit.status == 0, "\(emit.error)")
        #expect(await eventually { monitor.output.contains("member=\(marker)") }, "\(monitor.output)")
    }

    /// A broker on a private bus and an app served by this process (its manifest launches this
    /// process's executable, so the receiver check admits it), its direct link attached.
    static func inProcessApp() async throws -> (BrokerFixture, Application, OpenedURLs) {
        let fixture = try await BrokerFixture { try $0.write("org.example.tests.inprocess", schemes: ["inproc"], arguments: ["/proc/\(getpid())/exe"]) }
        let opened = OpenedURLs()
        let app = try Application(bundleID: "org.example.tests.inprocess", delegate: opened, connection: fixture.bus.connect())
        try await app.start()
        #expect(await eventually { app.brokerLink != nil && fixture.service.directlyLinked.count == 1 })
        return (fixture, app, opened)
    }

    /// Opens three todolist URLs (the first launches the app), waiting for its link in between.
    static func openThree(_ fixture: BrokerFixture, expectLink: Bool) async throws {
        #expect(try await fixture.client.open("todolist://www.acme.com?First%20task").handled)
        if expectLink { #expect(await eventually { !fixture.service.directlyLinked.isEmpty }) }
        #expect(try await fixture.client.open("todolist://www.acme.com?Second%20task").handled)
        #expect(try await fixture.client.open("todolist://www.acme.com?Third%20task").handled)
        #expect(fixture.todoItems().compactMap { $0["task"] }.suffix(3) == ["First task", "Second task", "Third task"])
    }

    @Test func aCourierAppsURLsTravelItsLinkAndNotTheBus() async throws {
        let linked = try await BrokerFixture { try $0.todolist() }
        defer { linked.tearDown() }
        let watching = try await Self.monitor(linked)
        defer { watching.kill() }
        try await Self.openThree(linked, expectLink: true)
        try await Self.drain(watching, linked)
        // The launch request went over the bus (the app had no link before it checked in); the
        // other two did not.
        #expect(watching.output.components(separatedBy: "member=OpenURL").count - 1 == 1, "\(watching.output)")
        #expect(watching.output.contains("First%20task") && !watching.output.contains("Second%20task") && !watching.output.contains("Third%20task"))

        // The same with links turned off (courierd --no-direct-links): the monitor sees them.
        let busOnly = try await BrokerFixture(directLinks: false) { try $0.todolist() }
        defer { busOnly.tearDown() }
        let seeing = try await Self.monitor(busOnly)
        defer { seeing.kill() }
        try await Self.openThree(busOnly, expectLink: false)
        #expect(busOnly.service.directlyLinked.isEmpty)
        let ps = try await busOnly.run(Products.path("courier"), ["ps", "--json"])
        #expect(ps.output.contains(#""delivery":"bus""#), "\(ps.output)")
        #expect(await eventually { seeing.output.components(separatedBy: "member=OpenURL").count - 1 == 3 }, "\(seeing.output)")
    }

    @Test func anAdmittedAppCannotAttachAsAnotherAndAProcessThatNeverCheckedInCannotConnect() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            let script = PythonPeers.path("link_hijacker.py")
            try writer.write("com.evil.linker", schemes: ["evil"], arguments: [systemPython, script, "com.acme.todolist"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("todolist://www.acme.com?Before").handled)
        #expect(await eventually { fixture.service.directlyLinked.count == 1 })

        _ = try? await fixture.client.open("evil://go")
        let evil = fixture.container("com.evil.linker")
        _ = try await ReceiverVerificationTests.waitForFile(evil.appendingPathComponent("ready.txt"))
        #expect(ReceiverVerificationTests.read(evil, "hijack.txt") == "org.courier.Error.NotPermitted\n")
        #expect(ReceiverVerificationTests.read(evil, "own.txt") == "ATTACHED\n")
        #expect(fixture.service.directlyLinked.count == 2)

        // A process that never checked in, knowing the address, is turned away as it authenticates.
        let address = try #require(ReceiverVerificationTests.read(evil, "address.txt")).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(address.hasPrefix("unix:path="))
        let script = PythonPeers.path("link_outsider.py")
        let outsider = try await fixture.run(systemPython, [script, address, "com.acme.todolist"])
        #expect(outsider.output.hasPrefix("REFUSED org.freedesktop.DBus.Error."), "\(outsider.output)\(outsider.error)")

        // The todolist's URLs still reach the todolist, and only it.
        #expect(try await fixture.client.open("todolist://www.acme.com?After").handled)
        #expect(fixture.todoItems().compactMap { $0["task"] }.suffix(2) == ["Before", "After"])
        #expect(try await fixture.client.open("evil://again").handled)
        let received = ReceiverVerificationTests.read(evil, "received.txt") ?? ""
        #expect(received.contains("evil://again") && !received.contains("todolist:"), "\(received)")
    }

    @Test func anAppKeepsNoLinkToAServerThatIsNotTheBroker() async throws {
        let fixture = try await BrokerFixture { _ in }
        defer { fixture.tearDown() }
        let out = fixture.root.appendingPathComponent("fake-link", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let script = PythonPeers.path("fake_link_server.py")
        let fake = try BackgroundProcess(systemPython, [script, out.path], environment: fixture.environment, outputIn: out, name: "fake-link-server")
        defer { fake.kill() }
        let address = try await ReceiverVerificationTests.waitForFile(out.appendingPathComponent("address.txt"))
        // The broker runs in this process: its pid is what the app expects to find listening.
        await #expect {
            _ = try await BrokerLink.attach(to: address, brokerPID: UInt32(getpid()), bundleID: "com.acme.todolist", serving: [], at: "/com/acme/todolist",
                                            confirmingOn: fixture.client.connection, to: fixture.service.connection.uniqueName!)
        } throws: { error in
            (error as? BrokerLink.Refusal)?.reason.contains("not by the broker (pid \(getpid()))") == true
        }
        // Nothing to wait for: a check that nothing happens gives a stray attach this long to show.
        try await Task.sleep(for: .milliseconds(200))
        #expect(ReceiverVerificationTests.read(out, "attached.txt") == nil)
    }

    @Test func whenAnAppsLinkCloses_itsURLsArriveOverTheBus() async throws {
        let (fixture, app, opened) = try await Self.inProcessApp()
        defer { app.stop(); fixture.tearDown() }
        #expect(try await fixture.client.open("inproc://over-the-link").handled)

        let watching = try await Self.monitor(fixture)
        defer { watching.kill() }
        app.brokerLink?.close()
        #expect(await eventually { fixture.service.directlyLinked.isEmpty })
        #expect(try await fixture.client.open("inproc://over-the-bus").handled)
        #expect(opened.urls == ["inproc://over-the-link", "inproc://over-the-bus"])
        #expect(await eventually { watching.output.contains("member=OpenURL") }, "\(watching.output)")
    }
}

extension DirectLinkTests {
    /// Links that connect and never attach are bounded (each holds a broker thread until its
    /// deadline): past `AppLinks.maximumUnconfirmed` the next one is closed at once, even from an
    /// admitted process; once they go, a link attaches again.
    @Test func linksThatNeverAttachAreBounded() async throws {
        let (fixture, app, _) = try await Self.inProcessApp()
        defer { app.stop(); fixture.tearDown() }
        let address = try #require(fixture.service.directLinkAddress)
        // Each idle link waits until the server accepted it (a call it answers: Peer.Ping).
        var idle: [DBusConnection] = []
        for _ in 0..<16 {
            let link = try DBusConnection(address: address, registerOnBus: false)
            _ = try await link.call(nil, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping", timeout: .seconds(5))
            idle.append(link)
        }
        let oneTooMany = try DBusConnection(address: address, registerOnBus: false)
        defer { oneTooMany.close() }
        await #expect(throws: DBusError.self) {
            _ = try await oneTooMany.call(nil, path: "/org/courier/Broker", interface: "org.courier.BrokerLink1", method: "Attach", [.string("org.example.tests.inprocess")], timeout: .seconds(5))
        }
        idle.forEach { $0.close() }
        var attached = false
        for _ in 0..<100 where !attached {   // until the broker has seen the idle ones go
            let attaching = try DBusConnection(address: address, registerOnBus: false)
            defer { attaching.close() }
            attached = (try? await attaching.call(nil, path: "/org/courier/Broker", interface: "org.courier.BrokerLink1", method: "Attach", [.string("org.example.tests.inprocess")], timeout: .seconds(5))) != nil
            if !attached { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(attached)
    }
}

extension DirectLinkTests {
    /// A socket with the app's pid is not the app: a link that did not come from the process that
    /// holds the app's bus connection (here: this process, which is the app's, connecting a second
    /// link) gets a challenge, but only the app's own unique name can hand it back — so a socket
    /// kept across an exec, or passed to another process, never takes the app's deliveries.
    @Test func aLinkWithTheAppsPidButNotItsBusConnectionGetsNothing() async throws {
        let (fixture, app, opened) = try await Self.inProcessApp()
        defer { app.stop(); fixture.tearDown() }
        let appsName = try #require(app.connection.uniqueName)

        // The stray socket: same pid, its own OpenURL noting what it is sent.
        let stolen = OpenedURLs()
        let stray = try DBusConnection(address: try #require(fixture.service.directLinkAddress), registerOnBus: false)
        defer { stray.close() }
        try stray.export([DBusInterface("org.courier.Application1", methods: [
            DBusMethod("OpenURL", arguments: "ssva{sv}", results: "ba{sv}") { call in
                stolen.record(call.arguments[0].stringValue ?? "")
                return [.boolean(true), .vardict([:])]
            },
        ])], at: "/org/courier/tests/inprocess")
        let challenge = try await stray.call(nil, path: "/org/courier/Broker", interface: "org.courier.BrokerLink1", method: "Attach", [.string("org.example.tests.inprocess")])
        let text = try #require(challenge.first?.stringValue)
        // Handed back from another bus connection (the attacker's): refused.
        await #expect(throws: DBusError.self) {
            _ = try await fixture.client.connection.call(fixture.service.connection.uniqueName, path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "ConfirmLink", [.string(text)])
        }
        // Even the app's own name cannot make it replace the link the app has.
        await #expect(throws: DBusError.self) {
            _ = try await app.connection.call(fixture.service.connection.uniqueName, path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "ConfirmLink", [.string(text)])
        }
        #expect(fixture.service.directlyLinked == [appsName.rawValue])
        #expect(try await fixture.client.open("inproc://to-the-app").handled)
        #expect(opened.urls == ["inproc://to-the-app"])
        #expect(stolen.urls.isEmpty)
    }
}

/// A delegate that records the URLs it is asked to open.
final class OpenedURLs: ApplicationDelegate, Sendable {
    private let opened = Mutex<[String]>([])
    var urls: [String] { opened.withLock { $0 } }
    func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool {
        record(url)
        return true
    }
    func record(_ url: String) { opened.withLock { $0.append(url) } }
}
