import BusTestSupport
import DBus
import Foundation
import Testing

/// Peers nobody here wrote (gdbus, busctl, dbus-send, Python's dbus module) talking to the binding.
@Suite struct InteropTests {
    @Test func gdbusCallsSwiftService() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let r = try await Tool.run(
                "/usr/bin/gdbus",
                ["call", "--session", "--dest", EchoService.name.rawValue, "--object-path", EchoService.path.rawValue,
                 "--method", "org.courier.test.Echo1.Echo", "hello from gdbus"],
                environment: bus.environment)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "('hello from gdbus',)")
        }
    }

    @Test func gdbusIntrospectReadsGeneratedXML() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let r = try await Tool.run(
                "/usr/bin/gdbus",
                ["introspect", "--session", "--dest", EchoService.name.rawValue, "--object-path", EchoService.path.rawValue],
                environment: bus.environment)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("interface org.courier.test.Echo1"))
            #expect(r.stdout.contains("EchoVariant(in  v value,"))
            #expect(r.stdout.contains("signal Tick(u count)") || r.stdout.contains("Tick(u count);"))
            #expect(r.stdout.contains("interface org.freedesktop.DBus.Properties"))
            // Parents of exported objects list their children.
            let root = try await Tool.run(
                "/usr/bin/gdbus",
                ["introspect", "--session", "--dest", EchoService.name.rawValue, "--object-path", "/org/courier"],
                environment: bus.environment)
            #expect(root.status == 0, "\(root.stderr)")
            #expect(root.stdout.contains("node test"))
        }
    }

    @Test func busctlCallsSwiftService() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let r = try await Tool.run(
                "/usr/bin/busctl",
                ["--address=\(bus.address)", "call", EchoService.name.rawValue, EchoService.path.rawValue,
                 EchoService.interface.rawValue, "EchoVariant", "v", "a{sv}", "1", "k", "u", "7"],
                environment: bus.environment)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "v a{sv} 1 \"k\" u 7")
        }
    }

    @Test func dbusSendCallsSwiftService() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let r = try await Tool.run(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=\(EchoService.name)", EchoService.path.rawValue,
                 "org.courier.test.Echo1.Echo", "string:via dbus-send"],
                environment: bus.environment)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("string \"via dbus-send\""))
        }
    }

    @Test func wrongSignatureFromDbusSendGetsInvalidArgsAndServiceKeepsServing() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let bad = try await Tool.run(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=\(EchoService.name)", EchoService.path.rawValue,
                 "org.courier.test.Echo1.Echo", "int32:5"],
                environment: bus.environment)
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"))
            #expect(bad.stderr.contains("expects arguments of signature 's', got 'i'"))
            let good = try await Tool.run(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=\(EchoService.name)", EchoService.path.rawValue,
                 "org.courier.test.Echo1.Echo", "string:still here"],
                environment: bus.environment)
            #expect(good.stdout.contains("still here"))
        }
    }


    @Test func swiftCallsPythonService() async throws {
        try await withPrivateBus { bus in
            let python = try Tool.start(PythonPeers.python, [PythonPeers.path("hello_service.py"), bus.address], environment: bus.environment)
            defer { python.kill() }
            let client = try bus.connect()
            defer { client.close() }
            let name: BusName = "org.courier.test.Py"
            var owner: BusName?
            for _ in 0..<200 where owner == nil {
                owner = try await client.nameOwner(of: name)
                if owner == nil { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(owner != nil, "the Python service did not take its name")
            let r = try await client.call(
                name, path: "/org/courier/test/Py", interface: "org.courier.test.Py1", method: "Hello",
                [.string("swift"), .vardict(["b": .boolean(true), "a": .uint32(1)])])
            #expect(r == [.string("hello swift"), .strings(["a", "b"])])
            do {
                _ = try await client.call(name, path: "/org/courier/test/Py", interface: "org.courier.test.Py1", method: "Boom")
                Issue.record("Boom did not fail")
            } catch let e as DBusError {
                #expect(e.name == "org.courier.test.Error.Boom")
                #expect(e.message == "it went boom")
            }
        }
    }
}
