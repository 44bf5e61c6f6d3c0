import BusTestSupport
import DBus
import Testing

/// A service's connection keeps small replies it sent and copies the next reply to the same caller
/// with the same values from them (`MessageTemplates`): each copy must answer its own call (its
/// reply serial), reach its own caller (the key's destination), and never stand in for a reply
/// with other values.
@Suite struct KeptReplyTests {
    /// Calls whose answers repeat and differ, many in flight, from two callers at once: every
    /// answer is the one to its own call.
    @Test func repeatedRepliesAnswerTheirOwnCallsAndCallers() async throws {
        try await EchoService.withClient { first, bus in
            let second = try bus.connect()
            defer { second.close() }
            // In rounds of 60 calls: the daemon allows a connection a bounded number of pending replies.
            for round in 0..<5 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in round * 30..<(round + 1) * 30 {
                        let client = i % 2 == 0 ? first : second
                        // Five distinct bodies, each sent many times; the second client's differ from
                        // the first's only by the caller.
                        let body: [DBusValue] = [.string("u\(i % 5)"), .string("app"), .variant(.boolean(i % 5 == 0)), .vardict([:])]
                        group.addTask {
                            let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "EchoFour", body)
                            #expect(r == body)
                        }
                        let short: DBusValue = .string("s\(i % 3)")
                        group.addTask {
                            let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [short])
                            #expect(r == [short])
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// A reply too large to keep, then a small one, then the large one again: each arrives whole.
    @Test func largeRepliesAreBuiltEachTime() async throws {
        try await EchoService.withClient { client, _ in
            let large = String(repeating: "x", count: 10_000)
            for text in [large, "small", large, "small", large + "y"] {
                let r = try await client.call(EchoService.name, path: EchoService.path, interface: EchoService.interface, method: "Echo", [.string(text)])
                #expect(r == [.string(text)])
            }
        }
    }
}
