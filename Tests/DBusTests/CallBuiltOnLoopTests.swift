import BusTestSupport
@testable import DBus
import Foundation
import Synchronization
import Testing

/// A call from an ordinary task made while other calls of its connection are in flight is built
/// and sent by the connection's I/O thread (`callBuiltOnLoop`, DBusConnection+CallOnLoop.swift).
/// Each test first puts a call that is never answered in flight, so that the calls after it take
/// that path, and checks that they behave as any call does: answered, refused at once when their
/// arguments are wrong, carrying file descriptors, ended by a cancel or a close.
@Suite(.timeLimit(.minutes(1))) struct CallBuiltOnLoopTests {
    static let interface: InterfaceName = "org.courier.test.Pipelined1"

    static func startService(on bus: PrivateBus) throws -> DBusConnection {
        let service = try bus.connect()
        try service.export([DBusInterface(interface, methods: [
            DBusMethod("Echo", arguments: "s", results: "s") { call in call.arguments },
            DBusMethod("CountFDs", arguments: "ah", results: "u") { call in [.uint32(UInt32(call.fds.count))] },
            DBusMethod("Never", results: "s", handler: { _ in
                try await Task.sleep(for: .seconds(60))
                return [.string("too late")]
            }),
        ])], at: "/service")
        return service
    }

    /// `body` with a client whose call to `Never` is in flight, and the service.
    func withCallInFlight(_ body: (DBusConnection, DBusConnection) async throws -> Void) async throws {
        try await withService({ try Self.startService(on: $0) }) { client, service async throws in
            let never = Task { try await call(client, service, "Never") }
            defer { never.cancel() }
            // The caller's own read of its reply gives up after 2 ms; then the call is pending.
            while client.state.withLock({ $0.isIdle }) { try await Task.sleep(for: .milliseconds(5)) }
            try await body(client, service)
        }
    }

    /// Returns once the I/O thread has built and sent `count` calls of `client` in all (the
    /// suite's time limit bounds the wait).
    func untilBuilt(_ client: DBusConnection, _ count: Int) async throws {
        while client.callsBuiltOnLoop.load(ordering: .relaxed) < count { try await Task.sleep(for: .milliseconds(2)) }
    }

    /// Returns once `count` calls wait in the queue of `client`'s (held) I/O thread.
    func untilQueued(_ client: DBusConnection, _ count: Int) async throws {
        while client.loop.handedOverCalls < count { try await Task.sleep(for: .milliseconds(2)) }
    }

    func call(_ client: DBusConnection, _ service: DBusConnection, _ method: MemberName, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await client.call(service.uniqueName, path: "/service", interface: Self.interface, method: method, arguments)
    }

    @Test func callsBesideOneInFlightAreBuiltByTheIOThreadAndAnswered() async throws {
        try await withCallInFlight { client, service async throws in
            let before = client.callsBuiltOnLoop.load(ordering: .relaxed)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        let reply = try await call(client, service, "Echo", [.string("n\(i)")])
                        #expect(reply == [.string("n\(i)")])
                    }
                }
                try await group.waitForAll()
            }
            #expect(client.callsBuiltOnLoop.load(ordering: .relaxed) == before + 20)
        }
    }

    @Test func wrongArgumentsAreRefusedBeforeAnythingIsSent() async throws {
        try await withCallInFlight { client, service async throws in
            let before = client.callsBuiltOnLoop.load(ordering: .relaxed)
            await #expect(throws: DBusError.self) {
                _ = try await call(client, service, "Echo", [.array(.int32, [.string("not an int32")])])
            }
            #expect(client.callsBuiltOnLoop.load(ordering: .relaxed) == before)
            #expect(try await call(client, service, "Echo", [.string("still fine")]) == [.string("still fine")])
        }
    }

    @Test func fileDescriptorsTravelWithACallBuiltOnTheIOThread() async throws {
        try await withCallInFlight { client, service async throws in
            let fd = try UnixFD(duplicating: 1)
            #expect(try await call(client, service, "CountFDs", [.array(.unixFD, [.unixFD(fd), .unixFD(fd)])]) == [.uint32(2)])
            #expect(client.callsBuiltOnLoop.load(ordering: .relaxed) > 0)
        }
    }

    @Test func aCancelledCallEndsAtOnceAndTheConnectionGoesOn() async throws {
        try await withCallInFlight { client, service async throws in
            let before = client.callsBuiltOnLoop.load(ordering: .relaxed)
            let waiting = Task { try await call(client, service, "Never") }
            try await untilBuilt(client, before + 1)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { _ = try await waiting.value }
            #expect(try await call(client, service, "Echo", [.string("after")]) == [.string("after")])
        }
    }

    /// The client's I/O thread held in a handler until `release()`: `left` tells whether the
    /// handler has returned (it gives up by itself after 10 s, so a broken test ends).
    final class HeldThread: Sendable {
        let entered = Atomic<Bool>(false)
        let left = Atomic<Bool>(false)
        let gate = DispatchSemaphore(value: 0)
        func release() { gate.signal() }
    }

    /// Makes the service call `Block` on the client, which holds the client's I/O thread until
    /// the returned gate is released; returns once the I/O thread is inside `Block`.
    func holdIOThread(of client: DBusConnection, from service: DBusConnection) async throws -> HeldThread {
        let held = HeldThread()
        try client.export([DBusInterface(Self.interface, methods: [
            DBusMethod("Block") { _ in
                held.entered.store(true, ordering: .sequentiallyConsistent)
                _ = held.gate.wait(timeout: .now() + 10)
                held.left.store(true, ordering: .sequentiallyConsistent)
                return []
            },
        ])], at: "/client")
        try service.callNoReply(client.uniqueName, path: "/client", interface: Self.interface, method: "Block")
        while !held.entered.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(2)) }
        return held
    }

    /// While the I/O thread is held up, a call handed to it waits in its queue; cancelled there, it
    /// is taken back and ends at once, not when the I/O thread comes back to it.
    @Test func aCallCancelledBeforeTheIOThreadTookItEndsAtOnce() async throws {
        try await withCallInFlight { client, service async throws in
            let held = try await holdIOThread(of: client, from: service)
            defer { held.release() }
            let waiting = Task { try await call(client, service, "Echo", [.string("never sent")]) }
            try await untilQueued(client, 1)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { _ = try await waiting.value }
            // Ended while the I/O thread was still held: the cancel did not wait for it.
            let ioThreadStillHeld = !held.left.load(ordering: .sequentiallyConsistent)
            #expect(ioThreadStillHeld, "the cancel waited for the I/O thread")
            held.release()
            #expect(try await call(client, service, "Echo", [.string("after")]) == [.string("after")])
        }
    }

    /// Calls still in the I/O thread's queue when the connection closes end with `Disconnected`.
    @Test func closingWhileCallsWaitInTheQueueEndsThem() async throws {
        try await withCallInFlight { client, service async throws in
            let held = try await holdIOThread(of: client, from: service)
            defer { held.release() }
            let waiting = (0..<4).map { i in Task { try await call(client, service, "Echo", [.string("q\(i)")]) } }
            try await untilQueued(client, 4)
            client.close()
            for w in waiting {
                await expectError(DBusError.disconnectedName) { _ = try await w.value }
            }
        }
    }

    @Test func closingTheConnectionEndsTheCallsBuiltOnTheIOThread() async throws {
        try await withCallInFlight { client, service async throws in
            let before = client.callsBuiltOnLoop.load(ordering: .relaxed)
            let waiting = (0..<8).map { _ in Task { try await call(client, service, "Never") } }
            try await untilBuilt(client, before + 8)
            client.close()
            for w in waiting {
                await expectError(DBusError.disconnectedName) { _ = try await w.value }
            }
            await expectError(DBusError.disconnectedName) { _ = try await call(client, service, "Echo", [.string("closed")]) }
        }
    }
}
