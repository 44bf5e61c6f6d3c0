import BusTestSupport
import Courier
import CourierTools
import DBus
import Foundation
import Testing

/// The bus daemon going away: courierd (started by bus activation, as in a session) exits with
/// status 0 and one log line saying why, reaps the apps it launched (they lose the bus too), and
/// the next bus activates a fresh broker on the first request.
@Suite("Broker when the bus goes away", .serialized)
struct BusLossTests {
    /// A service file whose Exec runs courierd under a small shell that records courierd's pid,
    /// its log and its exit status in `folder` (courierd's parent is the bus daemon, which dies:
    /// the test cannot wait for it itself). The status file appears whole (renamed into place): the
    /// test polls for it and once read it between its creation and the write.
    static func serviceFile(in folder: URL, manifests: URL, data: URL) -> String {
        let command = "XDG_DATA_HOME=\(data.path) XDG_CONFIG_HOME=\(folder.path)/config \(Products.path("courierd")) --manifests \(manifests.path) --no-desktop-entries --log-level=info 2>>\(folder.path)/courierd-$$.log & echo $! >\(folder.path)/courierd-$$.pid; wait $!; echo $? >\(folder.path)/courierd-$$.part; mv \(folder.path)/courierd-$$.part \(folder.path)/courierd-$$.status"
        return """
            [D-BUS Service]
            Name=org.courier.Broker
            Exec=/bin/sh -c '\(command)'

            """
    }

    @Test(.enabled(if: PrivateBus.supportsActivation, "bus activation needs systemd under dbus-broker"))
    func courierdExitsCleanlyWhenTheBusDiesAndTheNextBusActivatesANewOne() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-busloss-\(UUID().uuidString.prefix(8))")
        let services = root.appendingPathComponent("services")
        let manifests = root.appendingPathComponent("manifests")
        let runs = root.appendingPathComponent("runs")
        for folder in [services, manifests, runs] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        try BrokerFixture.ManifestWriter(folder: manifests).todolist()
        try Self.serviceFile(in: runs, manifests: manifests, data: root.appendingPathComponent("data"))
            .write(to: services.appendingPathComponent("org.courier.Broker.service"), atomically: true, encoding: .utf8)

        var previous: Int32 = 0
        for (round, signal) in [(1, SIGKILL), (2, SIGTERM)] {
            let bus = try PrivateBus(servicesDirectory: services)
            defer { bus.stop() }
            let client = BrokerToolClient(connection: try bus.connect())
            defer { client.connection.close() }
            let opened = try await client.open("todolist://www.acme.com?Round%20\(round)#today")
            #expect(opened.handled && opened.bundleID == "com.acme.todolist")
            let status = try await client.status()
            let broker = Int32(status["pid"]?.uint32Value ?? 0)
            #expect(broker > 0 && broker != previous, "round \(round): a new courierd each time")
            previous = broker
            let apps = try await client.listApplications().compactMap { $0["pid"]?.uint32Value }.map { Int32($0) }
            #expect(apps.count == 1)
            let wrapper = try #require(Self.wrapper(of: broker, in: runs), "round \(round): no pid file for courierd \(broker)")

            kill(bus.pid, signal)   // the bus daemon goes away under everyone
            let statusFile = runs.appendingPathComponent("courierd-\(wrapper).status").path
            var exit: String?
            for _ in 0..<500 where exit == nil {
                exit = (try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                if exit == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(exit == "0", "round \(round): courierd exit status \(exit ?? "none within 10 s")")
            let log = (try? String(contentsOfFile: runs.appendingPathComponent("courierd-\(wrapper).log").path, encoding: .utf8)) ?? ""
            let lines = log.split(separator: "\n").filter { $0.contains("the bus connection closed") }
            #expect(lines.count == 1, "round \(round): \(log)")
            #expect(lines.first?.contains("bus activation starts a new one") == true)
            // The app it launched lost the bus too; courierd reaped it (no process, no zombie).
            for pid in apps { #expect(kill(pid, 0) == -1 && errno == ESRCH, "round \(round): app \(pid) is still there") }
            #expect(kill(broker, 0) == -1, "round \(round): courierd \(broker) is still there")
        }
    }

    /// The same without bus activation, so it runs on dbus-broker too: courierd started directly.
    @Test func courierdStartedDirectlyExitsWithStatusZeroWhenTheBusDies() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-busloss-\(UUID().uuidString.prefix(8))")
        let manifests = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try BrokerFixture.ManifestWriter(folder: manifests).todolist()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let client = BrokerToolClient(connection: try bus.connect())
        defer { client.connection.close() }
        let courierd = try await startCourierd(["--manifests", manifests.path, "--no-desktop-entries", "--log-level=info"],
                                               environment: bus.environment(homesIn: root), outputIn: root, client: client)
        defer { courierd.kill() }
        #expect(try await client.open("todolist://www.acme.com?Direct#today").handled)
        let apps = try await client.listApplications().compactMap { $0["pid"]?.uint32Value }.map { Int32($0) }
        #expect(apps.count == 1)

        bus.stop()   // SIGKILL: the bus daemon (dbus-daemon, or dbus-broker's whole group) is gone
        for _ in 0..<500 where courierd.exitStatus == nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(courierd.exitStatus == 0, "courierd: \(courierd.exitStatus.map(String.init) ?? "still running after 10 s"); \(courierd.errors)")
        #expect(courierd.errors.split(separator: "\n").filter { $0.contains("the bus connection closed") }.count == 1, "\(courierd.errors)")
        for pid in apps { #expect(kill(pid, 0) == -1 && errno == ESRCH, "app \(pid) is still there") }
    }

    /// The pid of the shell that started courierd `pid` (its pid file is named after it).
    static func wrapper(of pid: Int32, in folder: URL) -> String? {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for file in files where file.hasSuffix(".pid") {
            let text = (try? String(contentsOfFile: folder.appendingPathComponent(file).path, encoding: .utf8)) ?? ""
            if Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == pid {
                return String(file.dropFirst("courierd-".count).dropLast(".pid".count))
            }
        }
        return nil
    }
}
