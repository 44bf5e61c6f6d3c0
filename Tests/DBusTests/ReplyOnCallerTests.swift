import BusTestSupport
@testable import DBus
import Foundation
import Synchronization
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
            DBusMethod("Echo", arguments: "s", results: "s") { call in call.arguments },
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
            // Answers later than a caller blocks its thread, between two calls to the caller's
            // `Block`, which holds the caller's I/O thread for a while: the reply and the second
            // arrive while the first holds it, so that it reads them in one go and routes the
            // second right after the reply.
            DBusMethod("LaterThenBlock", results: "s", deferred: { call, reply in
                let connection = call.connection, caller = call.sender
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
                    try? connection.callNoReply(caller, path: "/client", interface: interface, method: "Block")
                    usleep(5_000)   // the caller's I/O thread is now in the first `Block`
                    reply.succeed([.string("later")])
                    try? connection.callNoReply(caller, path: "/client", interface: interface, method: "Block")
                }
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
        try await withService({ try Self.startService(on: $0) }, andClient: body)
    }

    func call(_ client: DBusConnection, _ service: DBusConnection, _ method: MemberName, _ arguments: [DBusValue] = [],
              timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        try await client.call(service.uniqueName, path: "/service", interface: Self.interface, method: method, arguments, timeout: timeout)
    }

    /// How often the I/O thread of `connection` has gone to sleep and been woken so far (its
    /// voluntary context switches), nil when unknown.
    static func ioThreadWakeUps(_ connection: DBusConnection) -> Int? {
        let tid = connection.loop.kernelThreadID.load(ordering: .acquiring)
        guard tid != 0, let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            return Int(line.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// Sequential calls read their replies on the caller's thread and do not wake the I/O thread
    /// (the socket's read interest is taken out of its epoll set while lent). A few wake-ups are
    /// allowed (a reply later than the caller's budget on a loaded machine); one per call is not.
    @Test func sequentialCallsDoNotWakeTheIOThread() async throws {
        try await withServiceAndClient { client, service async throws in
            #expect(try await call(client, service, "Echo", [.string("warm-up")]) == [.string("warm-up")])
            let before = try #require(Self.ioThreadWakeUps(client))
            for i in 0..<200 {
                #expect(try await call(client, service, "Echo", [.string("\(i)")]) == [.string("\(i)")])
            }
            let woken = try #require(Self.ioThreadWakeUps(client)) - before
            #expect(woken < 50, "the I/O thread was woken \(woken) times for 200 sequential calls")
        }
    }

    /// A reply later than the caller's blocking budget is read by the I/O thread, which resumes
    /// the waiting task — once it is about to sleep (`IOLoop.resumeWhenIdle`), so that the task's
    /// next call finds it idle and reads its own reply again. Resumed at once, the task called
    /// again while the I/O thread was still busy (here: with a call to `Block` routed right after
    /// the reply; on a loaded machine: with finishing its iteration), took the thread hop, and so
    /// on for the calls after it.
    @Test func afterALateReplyTheNextCallIsLentTheSocket() async throws {
        try await withServiceAndClient { client, service async throws in
            let blocked = Mutex(0)
            try client.export([DBusInterface(Self.interface, methods: [
                DBusMethod("Block") { _ in
                    usleep(20_000)   // only in a test: a handler must not block the I/O thread
                    blocked.withLock { $0 += 1 }
                    return []
                },
            ])], at: "/client")
            for round in 0..<3 {
                #expect(try await call(client, service, "LaterThenBlock") == [.string("later")])
                let before = client.callerReads.load(ordering: .relaxed)
                #expect(try await call(client, service, "Echo", [.string("\(round)")]) == [.string("\(round)")])
                #expect(client.callerReads.load(ordering: .relaxed) == before + 1, "round \(round): the call after a late reply was not lent the socket")
            }
            #expect(blocked.withLock { $0 } == 6)
        }
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

    /// The I/O thread is told of a call's deadline only when it is the earliest of those in flight
    /// (`register`'s `.lowersEarliestDeadline`): a shorter call made while a longer one waits must
    /// still end on time, and a call made behind an earlier deadline must still end at its own.
    @Test(.timeLimit(.minutes(1))) func eachCallEndsAtItsOwnDeadlineWhateverWaitsBeside() async throws {
        try await withServiceAndClient { client, service async throws in
            let clock = ContinuousClock()
            let start = clock.now
            async let long: Void = expectError(DBusError.noReplyName) { _ = try await call(client, service, "Never", timeout: .seconds(3)) }
            while client.state.withLock({ $0.isIdle }) { try await Task.sleep(for: .milliseconds(2)) }   // the long call waits
            await expectError(DBusError.noReplyName) { _ = try await call(client, service, "Never", timeout: .milliseconds(200)) }
            #expect(clock.now - start < .seconds(2), "the shorter call waited for the longer one's deadline")
            async let later: Void = expectError(DBusError.noReplyName) { _ = try await call(client, service, "Never", timeout: .seconds(4)) }
            await long
            let longEnded = clock.now - start
            #expect(longEnded >= .seconds(3) && longEnded < .seconds(4))
            await later
            #expect(clock.now - start >= .seconds(4))
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
