import BusTestSupport
import DBus
import Testing

@Suite struct CallTests {
    @Test func swiftClientCallsSwiftService() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [.string("hello")])
            #expect(r == [.string("hello")])
            let who = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "WhoAmI")
            #expect(who == [.string(client.uniqueName!.rawValue)])
        }
    }

    @Test func errorReplyKeepsNameAndMessage() async throws {
        try await withPrivateBus { bus in
            let service = try await EchoService.start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            do {
                _ = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Fail", [.string("org.courier.Error.NoHandler"), .string("no app for x-foo")])
                Issue.record("expected an error")
            } catch let e as DBusError {
                #expect(e.name == "org.courier.Error.NoHandler")
                #expect(e.message == "no app for x-foo")
            }
        }
    }
}
