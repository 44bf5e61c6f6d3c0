import BusTestSupport
import DBus

/// A small Swift service used by several suites: echoes variants, fails on demand, reports the caller.
enum EchoService {
    static let name: BusName = "org.courier.test.Echo"
    static let path: ObjectPath = "/org/courier/test/Echo"
    static let interface: InterfaceName = "org.courier.test.Echo1"

    static func declaration() -> DBusInterface {
        DBusInterface(
            interface,
            methods: [
                DBusMethod("EchoVariant", arguments: "v", results: "v", argumentNames: ["value"], resultNames: ["value"]) { call in
                    call.arguments
                },
                DBusMethod("Echo", arguments: "s", results: "s") { call in call.arguments },
                // Four top-level arguments each way: built whole by `WireMessage`, not the iterator.
                DBusMethod("EchoFour", arguments: "ssva{sv}", results: "ssva{sv}") { call in call.arguments },
                DBusMethod("Fail", arguments: "ss") { call in
                    throw DBusError(name: call.arguments[0].stringValue!, message: call.arguments[1].stringValue!)
                },
                DBusMethod("WhoAmI", results: "s") { call in [.string(call.sender?.rawValue ?? "")] },
                DBusMethod("CountFDs", arguments: "ah", results: "u") { call in [.uint32(UInt32(call.fds.count))] },
            ],
            signals: [DBusSignal("Tick", arguments: "u", argumentNames: ["count"])])
    }

    /// Runs `body` with a client connection to a private bus on which this service runs: the
    /// set-up most bus tests here share (the bus, for a second client or another peer).
    static func withClient(_ body: (DBusConnection, PrivateBus) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let service = try await start(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            try await body(client, bus)
        }
    }

    /// Connects to `bus`, exports the service and owns its name.
    static func start(on bus: PrivateBus) async throws -> DBusConnection {
        let c = try bus.connect()
        try c.export([declaration()], at: path)
        let reply = try await c.requestName(name, flags: .doNotQueue)
        precondition(reply == .primaryOwner)
        return c
    }
}

/// `body` with a client connection and a service that `start` connects and exports, on a private
/// bus; both closed after.
func withService(
    _ start: (PrivateBus) throws -> DBusConnection, andClient body: (DBusConnection, DBusConnection) async throws -> Void
) async throws {
    try await withPrivateBus { bus in
        let service = try start(bus)
        defer { service.close() }
        let client = try bus.connect()
        defer { client.close() }
        try await body(client, service)
    }
}
