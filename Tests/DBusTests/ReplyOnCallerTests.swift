import BusTestSupport
import DBus
import Foundation
import Testing

/// A call from an ordinary task reads its reply on the caller's own thread while the connection's
/// I/O thread sleeps (`readReplyOnCaller`, DBusConnection+ReplyOnCaller.swift). Whatever else
/// arrives meanwhile must still be routed by the I/O thread, in order, and such a call must end in
/// the same ways as any other: a late reply, a timeout, a cancel, a close.
@Suite struct ReplyOnCallerTests {
    static let interface: InterfaceName = "org.courier.test.Caller1"

    /// A service whose methods answer in the ways the tests need.
    static func startService(on bus: PrivateBus) throws -> DBusConnection {
        let service = try bus.connect()
        try service.export([DBusInterface(interface, methods: [
            // Signals sent before the reply reach the caller's connection before it.
            DBusMethod("TickThenEcho", arguments: "s", results: "s") { call in
                for i in 0..<5 {
                    try call.connection.emitSignal(path: "/service", interface: interface, member: "Tick", [.uint32(UInt32(i))])
                }
                return call.arguments
            },
            // Calls the caller's own connection back before answering.
            DBusMethod("AskBack", results: "s", deferred: { call, reply in
                call.connection.call(call.sender, path: "/client", interface: interface, method: "Name") { result in
                    reply.complete(result.map { [.string("asked " + ($0.body.first?.stringValue ?? "?"))] })
                }
            }),
            // Answers after longer than a caller blocks its thread.
            DBusMethod("Later", arguments: "s", results: "s", deferred: { call, reply in
                let text = call.arguments[0].stringValue ?? ""
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) { reply.succeed([.string(text)]) }
            }),
            DBusMethod("Never", results: "s", handler: { _ in
                try await Task.sleep(for: .seconds(60))
                return [.string("too late")]
            }),
        ], signals: [DBusSignal("Tick", arguments: "u", argumentNames: ["count"])])], at: "/service")
        return service
    }

    /// `body` with a client connection and the service, on a private bus; both closed after.
    func withServiceAndClient(_ body: (DBusConnection, DBusConnection) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let service = try Self.startService(on: bus)
            defer { service.close() }
            let client = try bus.connect()
            defer { client.close() }
            try await body(client, service)
        }
    }

    func call(_ client: DBusConnection, _ service: DBusConnection, _ method: MemberName, _ arguments: [DBusValue] = [],
              timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        try await client.call(service.uniqueName, path: "/service", interface: Self.interface, method: method, arguments, timeout: timeout)
    }

    @Test func signalsThatPrecedeTheReplyAreDeliveredInOrder() async throws {
        try await withServiceAndClient { client, service async throws in
            let ticks = try await client.signals(matching: MatchRule(interface: Self.interface, member: "Tick"))
            for round in 0..<3 {
                #expect(try await call(client, service, "TickThenEcho", [.string("r\(round)")]) == [.string("r\(round)")])
            }
            var got: [UInt32] = []
            for await s in ticks {
                got.append(s.body.first?.uint32Value ?? 99)
                if got.count == 15 { break }
            }
            #expect(got == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
        }
    }

    @Test func theCallersConnectionServesACallWhileTheCallerWaits() async throws {
        try await withServiceAndClient { client, service async throws in
            try client.export([DBusInterface(Self.interface, methods: [
                DBusMethod("Name", results: "s") { _ in [.string("client")] },
            ])], at: "/client")
            for _ in 0..<3 {
                #expect(try await call(client, service, "AskBack") == [.string("asked client")])
            }
        }
    }

    @Test func aReplyLaterThanTheCallerBlocksStillArrives() async throws {
        try await withServiceAndClient { client, service async throws in
            #expect(try await call(client, service, "Later", [.string("late")]) == [.string("late")])
            // The socket went back to the I/O thread: the next calls work, quick or late.
            #expect(try await call(client, service, "TickThenEcho", [.string("next")]) == [.string("next")])
            #expect(try await call(client, service, "Later", [.string("again")]) == [.string("again")])
        }
    }

    @Test func aTimeoutShorterThanTheBlockingTimeEndsTheCall() async throws {
        try await withServiceAndClient { client, service async throws in
            await expectError(DBusError.noReplyName) { _ = try await call(client, service, "Never", timeout: .milliseconds(1)) }
            #expect(try await call(client, service, "TickThenEcho", [.string("after")]) == [.string("after")])
        }
    }

    enum Interruption: CaseIterable, Sendable { case cancel, close }

    /// A call waiting for a reply that never comes ends when its task is cancelled (the connection
    /// then still works) or its connection is closed.
    @Test(arguments: Interruption.allCases) func aWaitingCallEndsWhenInterrupted(_ interruption: Interruption) async throws {
        try await withServiceAndClient { client, service async throws in
            let waiting = Task { try await call(client, service, "Never") }
            try await Task.sleep(for: .milliseconds(5))
            switch interruption {
            case .cancel:
                waiting.cancel()
                await #expect(throws: CancellationError.self) { _ = try await waiting.value }
                #expect(try await call(client, service, "TickThenEcho", [.string("after")]) == [.string("after")])
            case .close:
                client.close()
                await expectError(DBusError.disconnectedName) { _ = try await waiting.value }
            }
        }
    }
}
