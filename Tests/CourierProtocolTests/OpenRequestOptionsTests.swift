import CourierNames
import CourierProtocol
import DBus
import Testing

/// What a caller sends with `OpenURL`, `OpenFiles`, `Launch` and `Restart`, encoded once for the
/// app library and the tools: only what was set travels, under its literal key (the oracle here).
struct OpenRequestOptionsTests {
    @Test func onlyTheOptionsSetAreSentUnderTheirKeys() {
        #expect(OpenRequestOptions().dictionary.isEmpty)
        let all = OpenRequestOptions(bundleID: "com.acme.todolist", annotation: .bytes([1, 2]), background: true, activationToken: "tok",
                                     timeout: .milliseconds(1500), dryRun: true, relayed: true, arguments: ["-v"], fresh: true).dictionary
        #expect(all == [
            "bundle-id": .string("com.acme.todolist"), "annotation": .bytes([1, 2]), "background": .boolean(true), "activation-token": .string("tok"),
            "timeout-ms": .uint32(1500), "dry-run": .boolean(true), "relayed": .boolean(true), "arguments": .strings(["-v"]), "fresh": .boolean(true),
        ])
        #expect(OpenRequestOptions(bundleID: "com.acme.todolist").body(url: "todolist:x") == [.string("todolist:x"), .vardict(["bundle-id": .string("com.acme.todolist")])])
    }

    @Test func aDeadlineIsSentInWholeMillisecondsAndClamped() {
        #expect(OpenRequestOptions(timeout: .microseconds(2999)).dictionary["timeout-ms"] == .uint32(2))
        #expect(OpenRequestOptions(timeout: .seconds(10_000_000)).dictionary["timeout-ms"] == .uint32(.max))
        #expect(OpenRequestOptions(timeout: .seconds(-1)).dictionary["timeout-ms"] == .uint32(0))
    }

    @Test func anAnnotationOverTheLimitIsRefusedBeforeItIsSent() {
        #expect(throws: Never.self) { try OpenRequestOptions(annotation: .bytes([UInt8](repeating: 0, count: CourierLimits.maximumAnnotationBytes))).checkAnnotationSize() }
        let error = #expect(throws: CourierError.self) {
            try OpenRequestOptions(annotation: .bytes([UInt8](repeating: 0, count: CourierLimits.maximumAnnotationBytes + 1))).checkAnnotationSize()
        }
        #expect(error?.code == .limitsExceeded && error?.message.contains("16 MiB") == true)
    }

    @Test func launchOptionsSendOnlyWhatWasSet() {
        #expect(LaunchRequestOptions().dictionary.isEmpty)
        #expect(LaunchRequestOptions(arguments: ["a", "b"], fresh: true).dictionary == ["arguments": .strings(["a", "b"]), "fresh": .boolean(true)])
    }

    @Test func aLaunchReplyDecodesAndRoundTrips() throws {
        let reply = try LaunchReply([.vardict(["already-running": .boolean(true), "state": .string("active"), "pid": .uint32(42)])])
        #expect(reply == LaunchReply(alreadyRunning: true, state: "active", pid: 42))
        #expect(try LaunchReply(reply.body, of: Broker1.restart) == reply)
        #expect(try LaunchReply([.vardict([:])]) == LaunchReply(alreadyRunning: false, state: nil, pid: nil))
        let error = #expect(throws: CourierError.self) { try LaunchReply([.string("active")]) }
        #expect(error?.code == .bus)
    }
}
