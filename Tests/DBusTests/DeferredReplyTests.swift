import BusTestSupport
import DBus
import Foundation
import Synchronization
import Testing

/// Deferred handlers (`DBusMethod(…, deferred:)`) answering through `DBusMethodReply`, and calls
/// with a completion instead of `await`: the pair a forwarding service (the broker) uses so that
/// no task waits per request.
@Suite struct DeferredReplyTests {
    static let interface: InterfaceName = "org.courier.test.Forward1"

    /// A backend with `Upper(s) → s`, and a front whose deferred `Forward(s) → s` calls it with a
    /// completion and answers from that completion.
    func withForwarder(_ bus: PrivateBus, _ body: (DBusConnection, DBusConnection) async throws -> Void) async throws {
        let backend = try bus.connect()
        defer { backend.close() }
        try backend.export([DBusInterface(Self.interface, methods: [
            DBusMethod("Upper", arguments: "s", results: "s") { call in [.string((call.arguments[0].stringValue ?? "").uppercased())] },
            DBusMethod("Refuse", arguments: "s", results: "s") { _ in throw DBusError(name: "org.courier.test.Error.Refused", message: "not today") },
        ])], at: "/backend")
        let front = try bus.connect()
        defer { front.close() }
        let backendName = backend.uniqueName
        try front.export([DBusInterface(Self.interface, methods: [
            DBusMethod("Forward", arguments: "ss", results: "s", deferred: { call, reply in
                let method = MemberName(validating: call.arguments[0].stringValue ?? "") ?? "Upper"
                call.connection.call(backendName, path: "/backend", interface: Self.interface, method: method, [call.arguments[1]]) { result in
                    reply.complete(result.map(\.body))
                }
            }),
            // Answers on another thread, after the handler has returned.
            DBusMethod("Later", arguments: "s", results: "s", deferred: { call, reply in
                let text = call.arguments[0].stringValue ?? ""
                Thread.detachNewThread { reply.succeed([.string("later " + text)]) }
            }),
            DBusMethod("Drop", results: "s", deferred: { _, _ in }),
            DBusMethod("Twice", results: "s", deferred: { _, reply in
                reply.succeed([.string("first")])
                reply.succeed([.string("second")])
                reply.fail(DBusError.failed("third"))
            }),
            DBusMethod("WrongResult", results: "s", deferred: { _, reply in reply.succeed([.uint32(7)]) }),
        ])], at: "/front")
        let client = try bus.connect()
        defer { client.close() }
        try await body(front, client)
    }

    @Test func aDeferredHandlerAnswersFromACallCompletionAndFromAnotherThread() async throws {
        try await withPrivateBus { bus in
            try await withForwarder(bus) { front, client async throws in
                let frontName = front.uniqueName
                func call(_ method: MemberName, _ args: [DBusValue]) async throws -> [DBusValue] {
                    try await client.call(frontName, path: "/front", interface: Self.interface, method: method, args)
                }
                #expect(try await call("Forward", [.string("Upper"), .string("quarterly report")]) == [.string("QUARTERLY REPORT")])
                #expect(try await call("Later", [.string("x")]) == [.string("later x")])
                // The backend's error travels through the completion with its name and message.
                await expectError("org.courier.test.Error.Refused", containing: "not today") {
                    _ = try await call("Forward", [.string("Refuse"), .string("x")])
                }
                // 100 pipelined forwards (the private bus allows 128 pending replies per connection): every one answered, each with its own argument.
                let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for i in 0..<100 {
                        group.addTask { (i, try await call("Forward", [.string("Upper"), .string("item \(i)")]).first?.stringValue ?? "") }
                    }
                    return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
                }
                #expect(answers.count == 100)
                #expect((0..<100).allSatisfy { answers[$0] == "ITEM \($0)" })
                // A peer nobody here wrote sees an ordinary method.
                let r = try await Tool.run(
                    "/usr/bin/gdbus",
                    ["call", "--address", bus.address, "--dest", frontName?.rawValue ?? "", "--object-path", "/front",
                     "--method", "\(Self.interface).Forward", "Upper", "from gdbus"],
                    environment: bus.environment)
                #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "('FROM GDBUS',)", "\(r.stderr)")
            }
        }
    }

    @Test func aDroppedReplyAnswersFailedAndOnlyTheFirstAnswerCounts() async throws {
        try await withPrivateBus { bus in
            try await withForwarder(bus) { front, client async throws in
                let frontName = front.uniqueName
                func call(_ method: MemberName) async throws -> [DBusValue] {
                    try await client.call(frontName, path: "/front", interface: Self.interface, method: method, timeout: .seconds(5))
                }
                await expectError(DBusError.failedName, containing: "without answering") { _ = try await call("Drop") }
                #expect(try await call("Twice") == [.string("first")])
                await expectError(DBusError.failedName, containing: "'u'") { _ = try await call("WrongResult") }
                // Still serving.
                #expect(try await client.call(frontName, path: "/front", interface: Self.interface, method: "Forward", [.string("Upper"), .string("ok")]) == [.string("OK")])
            }
        }
    }

    @Test func aCallWithACompletionReportsTimeoutsAndBadArgumentsExactlyOnce() async throws {
        try await withPrivateBus { bus in
            let silent = try bus.connect()
            defer { silent.close() }
            try silent.export([DBusInterface(Self.interface, methods: [DBusMethod("Never", deferred: { _, reply in
                // Kept, never answered, until the test ends.
                Thread.detachNewThread { Thread.sleep(forTimeInterval: 3); withExtendedLifetime(reply) {} }
            })])], at: "/silent")
            let client = try bus.connect()
            defer { client.close() }
            let outcomes = Mutex<[String]>([])
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                client.call(silent.uniqueName, path: "/silent", interface: Self.interface, method: "Never", timeout: .milliseconds(200)) { result in
                    outcomes.withLock { $0.append((try? result.get()).map { _ in "reply" } ?? "\((result.failureError as? DBusError)?.name ?? "?")") }
                    done.resume()
                }
            }
            // A string with a NUL is refused before anything is sent, on the calling thread.
            client.call(silent.uniqueName, path: "/silent", interface: Self.interface, method: "Never", [.string("a\0b")]) { result in
                outcomes.withLock { $0.append("\((result.failureError as? DBusError)?.name ?? "?")") }
            }
            #expect(outcomes.withLock { $0 } == [DBusError.noReplyName, "org.freedesktop.DBus.Error.InvalidArgs"])
        }
    }
}

extension Result {
    var failureError: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
