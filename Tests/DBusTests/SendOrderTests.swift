import BusTestSupport
import DBus
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Messages sent from tasks of the global pool take one of three ways out (`IOLoop.send`): straight
/// out while the I/O thread sleeps, queued for the thread that is sending directly at that moment,
/// or queued for the I/O thread while it is awake. Whichever way, the bus must receive each task's
/// messages in the order the task sent them, and none may be lost. Pipelined calls run meanwhile,
/// so that the I/O thread keeps waking and sleeping and all three ways are taken.
@Suite struct SendOrderTests {
    static let interface: InterfaceName = "org.courier.Test.Order"

    @Test func eachTasksMessagesReachTheBusInOrderWhileCallsArePipelined() async throws {
        try await EchoService.withClient { sender, bus in
            let receiver = try bus.connect()
            defer { receiver.close() }
            let numbered = try await receiver.signals(matching: MatchRule(sender: sender.uniqueName, interface: Self.interface, member: "Numbered"))

            let emitters = 8, perEmitter = 400, callers = 32, callsEach = 50
            try await withThrowingTaskGroup(of: Void.self) { group in
                for e in 0..<emitters {
                    group.addTask {
                        for n in 0..<perEmitter {
                            try sender.emitSignal(path: "/order", interface: Self.interface, member: "Numbered", [.uint32(UInt32(e)), .uint32(UInt32(n))])
                            if n % 16 == 0 { await Task.yield() }
                        }
                    }
                }
                for c in 0..<callers {
                    group.addTask {
                        for i in 0..<callsEach {
                            let r = try await sender.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [.string("\(c).\(i)")])
                            #expect(r == [.string("\(c).\(i)")])
                        }
                    }
                }
                try await group.waitForAll()
            }

            var next = [Int](repeating: 0, count: emitters)
            var received = 0
            for await s in numbered {
                guard let e = s.body.first?.uint32Value.map(Int.init), let n = s.body.last?.uint32Value.map(Int.init), e < emitters else {
                    Issue.record("unexpected signal body \(s.body)")
                    break
                }
                #expect(n == next[e], "emitter \(e): message \(n) arrived where \(next[e]) was due")
                next[e] = n + 1
                received += 1
                if received == emitters * perEmitter { break }
            }
            #expect(next == [Int](repeating: perEmitter, count: emitters))
        }
    }
}

extension SendOrderTests {
    /// A task's message queued while the I/O thread is busy must not be overtaken by the same
    /// task's next message once the task has moved onto the connection's executor (and sends from
    /// the I/O thread itself).
    @Test(.timeLimit(.minutes(1))) func aTaskThatMovesOntoTheExecutorKeepsItsOrder() async throws {
        try await EchoService.withClient { sender, bus in
            let receiver = try bus.connect()
            defer { receiver.close() }
            let numbered = try await receiver.signals(matching: MatchRule(sender: sender.uniqueName, interface: Self.interface, member: "Numbered"))
            let held = Mutex(false)
            try sender.export([DBusInterface(Self.interface, methods: [
                DBusMethod("Hold") { _ in
                    held.withLock { $0 = true }
                    usleep(200_000)   // the sender's I/O thread is awake and busy
                    return []
                },
            ])], at: "/order")
            try receiver.callNoReply(sender.uniqueName, path: "/order", interface: Self.interface, method: "Hold")
            while !held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            try sender.emitSignal(path: "/order", interface: Self.interface, member: "Numbered", [.uint32(0), .uint32(0)])
            try await withTaskExecutorPreference(sender.executor) {
                try sender.emitSignal(path: "/order", interface: Self.interface, member: "Numbered", [.uint32(0), .uint32(1)])
            }
            var got: [UInt32] = []
            for await s in numbered {
                got.append(s.body.last?.uint32Value ?? 99)
                if got.count == 2 { break }
            }
            #expect(got == [0, 1])
        }
    }
}
