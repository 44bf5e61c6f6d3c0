import BusTestSupport
import Courier
import CourierBroker
import CourierNames
import DBus
import Foundation
import Synchronization
import Testing
import CourierTools
import CourierProtocol

/// Hostile and failing peers on a real bus: every request ends with an answer or a clear error,
/// and a misbehaving app or caller hurts no other. Each test is bounded to a few seconds.
@Suite("Broker faults", .serialized)
struct BrokerFaultTests {
    @Test func execFailuresNameTheErrnoAndTheBrokerKeepsServing() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            let notExecutable = writer.folder.appendingPathComponent("not-executable")
            try Data("#!/bin/sh\nexit 0\n".utf8).write(to: notExecutable)
            let notAProgram = writer.folder.appendingPathComponent("not-a-program")
            // Written through an O_CLOEXEC descriptor: a process spawned meanwhile by another test
            // must not inherit it open for writing (exec would then fail with ETXTBSY).
            let fd = open(notAProgram.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            let junk: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0xDE, 0xAD]
            #expect(fd >= 0 && write(fd, junk, junk.count) == junk.count)
            close(fd)
            try writer.write("com.acme.enoent", schemes: ["enoent"], arguments: ["/nonexistent/courier-app"])
            try writer.write("com.acme.eacces", schemes: ["eacces"], arguments: [notExecutable.path])
            try writer.write("com.acme.enoexec", schemes: ["enoexec"], arguments: [notAProgram.path])
        }
        defer { fixture.tearDown() }
        for (scheme, errno) in [("enoent", "ENOENT"), ("eacces", "EACCES"), ("enoexec", "ENOEXEC")] {
            let expected = ["ENOENT": ENOENT, "EACCES": EACCES, "ENOEXEC": ENOEXEC][errno]!
            let error = await #expect(throws: CourierError.self) { try await fixture.client.open("\(scheme)://x") }
            #expect(error?.code == .launchFailed, "\(scheme): \(String(describing: error))")
            #expect(error?.message.contains("errno \(expected)") == true, "\(scheme): \(error?.message ?? "")")
        }
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20exec%20failures").handled)
    }

    @Test func anAppCheckingInUnderAnotherBundleIDIsRefused() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            let script = PythonPeers.path("stress_app.py")
            try writer.write("com.acme.impostor", schemes: ["impostor"], arguments: [systemPython, script, "impersonate", "com.acme.todolist"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("impostor://x").handled)
        let answer = try String(contentsOf: container(fixture, "com.acme.impostor").appendingPathComponent("checkin.txt"), encoding: .utf8)
        #expect(answer.hasPrefix("org.courier.Error.NotPermitted"), "\(answer)")
        // todolist was neither marked running nor handed the impostor's connection.
        #expect(try await fixture.client.open("todolist://www.acme.com?Real").handled)
        #expect(fixture.todoItems().map { $0["task"] } == ["Real"])
    }

    @Test func anAppCheckingInTwiceIsAnsweredAndKeepsServing() async throws {
        let fixture = try await BrokerFixture { writer in
            let script = PythonPeers.path("stress_app.py")
            try writer.write("com.acme.twice", schemes: ["twice"], arguments: [systemPython, script, "checkin-twice"])
        }
        defer { fixture.tearDown() }
        #expect(try await fixture.client.open("twice://one").handled)
        let answer = try String(contentsOf: container(fixture, "com.acme.twice").appendingPathComponent("checkin.txt"), encoding: .utf8)
        #expect(answer == "ok" || answer.hasPrefix("org.courier.Error."), "\(answer)")
        #expect(try await fixture.client.open("twice://two").handled)
        #expect(fixture.launcher.count == 1)
    }

    @Test func aSlowHandlerDelaysNoOtherApp() async throws {
        let fixture = try await BrokerFixture { writer in
            try writer.todolist()
            let script = PythonPeers.path("stress_app.py")
            try writer.write("com.acme.slow", schemes: ["slow"], arguments: [systemPython, script, "slow", "3"])
        }
        defer { fixture.tearDown() }
        let client = fixture.client
        let slowDone = Flag()
        let slow = Task {
            defer { slowDone.set() }
            return try await client.open("slow://x").handled
        }
        // Whatever the slow app is doing, todolist (cold, then warm) is served meanwhile.
        for i in 0..<3 {
            #expect(try await fixture.client.open("todolist://www.acme.com?During%20slow%20\(i)").handled)
        }
        #expect(!slowDone.isSet, "the slow request should still be pending while todolist is served")
        #expect(try await slow.value)
    }

    @Test func anOversizedURLIsRefusedWithTheLimit() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let url = "todolist://www.acme.com?" + String(repeating: "a", count: 70 * 1024)
        let error = await #expect(throws: CourierError.self) { try await fixture.client.open(url) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("limit") == true, "\(error?.message ?? "")")
        #expect(fixture.launcher.count == 0)
    }

    @Test func aHugeAnnotationIsDeliveredOrRefusedClearly() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        var options = OpenRequestOptions()
        options.annotation = .string(String(repeating: "x", count: 1 << 20))
        do {
            let result = try await fixture.client.open("todolist://www.acme.com?Annotated", options: options)
            #expect(result.handled)
        } catch {
            #expect(error.code == .limitsExceeded || error.code.rawValue == "InvalidArguments", "\(error)")
        }
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20annotation").handled)
    }

    @Test func nestingBeyondTheLimitIsRefusedBeforeTheBroker() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        var value = DBusValue.string("deep")
        for _ in 0..<40 { value = .array(value.type, [value]) }
        let error = await #expect(throws: (any Error).self) {
            try await fixture.client.connection.call(
                "org.courier.Broker", path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "OpenURL",
                [.string("todolist://www.acme.com?Deep"), .vardict(["annotation": value])])
        }
        #expect(error != nil)
        #expect(fixture.todoItems().isEmpty)
        #expect(try await fixture.client.open("todolist://www.acme.com?After%20nesting").handled)
    }

    /// 300 fds exceed what one message may carry (the kernel's SCM_MAX_FD, 253): the sender's own
    /// connection fails; the broker never sees the message and keeps serving everyone else.
    @Test func hundredsOfFileDescriptorsFailOnlyTheSender() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let file = fixture.root.appendingPathComponent("drop.txt")
        try Data("hello\n".utf8).write(to: file)
        var fds: [UnixFD] = []
        for _ in 0..<300 {
            let fd = open(file.path, O_RDONLY | O_CLOEXEC)
            #expect(fd >= 0)
            fds.append(UnixFD(taking: fd))
        }
        defer { fds.forEach { $0.close() } }
        let error = await #expect(throws: (any Error).self) {
            try await fixture.client.connection.call(
                "org.courier.Broker", path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "DropFiles",
                [.string("com.acme.todolist"), .fds(fds), .strings(Array(repeating: "", count: fds.count)), .vardict([:])])
        }
        #expect(error != nil)
        let other = BrokerToolClient(connection: try fixture.bus.connect())
        defer { other.connection.close() }
        #expect(try await other.open("todolist://www.acme.com?After%20fds").handled)
    }

    private func container(_ fixture: BrokerFixture, _ bundleID: String) -> URL {
        fixture.dataHome.appendingPathComponent("courier/containers/\(bundleID)")
    }
}

/// A one-way flag shared between tasks.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
