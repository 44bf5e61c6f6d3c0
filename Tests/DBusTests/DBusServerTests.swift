import BusTestSupport
import DBus
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Peer-to-peer connections through `DBusServer`: what the kernel says about each end, and a peer
/// the server does not admit — the binding's own client, and Python's `dbus` module (libdbus as
/// dbus-python drives it) as a client nobody here wrote.
@Suite(.serialized) struct DBusServerTests {
    static let path: ObjectPath = "/org/courier/test/Peer"
    static let interface: InterfaceName = "org.courier.test.Peer1"

    @Test func anAdmittedPeerCallsTheServerAndEachEndKnowsTheOther() async throws {
        let served = try ServedPeers { _ in true }
        defer { served.close() }
        #expect(served.server.address.hasPrefix("unix:path=\(served.folder.path)/"))
        let client = try DBusConnection(address: served.server.address, registerOnBus: false)
        defer { client.close() }
        #expect(client.uniqueName == nil)
        let answer = try await client.call(nil, path: Self.path, interface: Self.interface, method: "Hello", [.string("peer")])
        #expect(answer == [.string("hello, peer")])
        // Both ends are this process: the kernel says so on each side.
        #expect(client.peerCredentials?.processID == UInt32(getpid()))
        #expect(client.peerCredentials?.userID == getuid())
        // Asked as it was accepted and again as it authenticated: the kernel's word both times.
        let admitted = served.record.admitted.withLock { $0 }
        #expect(!admitted.isEmpty && admitted.allSatisfy { $0 == Credentials(processID: UInt32(getpid()), userID: getuid(), securityLabel: nil) })
        #expect(served.record.accepted.withLock { $0.first?.peerCredentials?.processID } == UInt32(getpid()))
    }

    @Test func aPeerTheServerDoesNotAdmitIsClosedAsItIsAccepted() async throws {
        let served = try ServedPeers { _ in false }
        defer { served.close() }
        let client = try DBusConnection(address: served.server.address, registerOnBus: false)
        defer { client.close() }
        await #expect(throws: DBusError.self) {
            _ = try await client.call(nil, path: Self.path, interface: Self.interface, method: "Hello", [.string("peer")], timeout: .seconds(5))
        }
        // Refused as it was accepted: never asked again, never served.
        #expect(served.record.asked.withLock { $0.count } == 1)
        #expect(served.record.accepted.withLock { $0.isEmpty })
        await client.waitUntilDisconnected()
        #expect(!client.isConnected)
    }

    /// The peer calls as soon as it has authenticated, while the server's handler is still
    /// setting the connection up: the call waits for what the handler exports, and is answered.
    @Test func aPeersFirstCallReachesWhatTheHandlerExportsHoweverLongItTakes() async throws {
        let served = try ServedPeers(settling: .milliseconds(300)) { _ in true }
        defer { served.close() }
        let client = try DBusConnection(address: served.server.address, registerOnBus: false)
        defer { client.close() }
        let answer = try await client.call(nil, path: Self.path, interface: Self.interface, method: "Hello", [.string("early")], timeout: .seconds(10))
        #expect(answer == [.string("hello, early")])
    }

    /// dbus-python connects as a peer: let in when its pid is admitted, refused when not.
    @Test func pythonsDBusModuleIsAdmittedOnlyByItsPid() async throws {
        let script = PythonPeers.path("peer_client.py")
        let python = PythonPeers.python
        let environment = ProcessInfo.processInfo.environment
        // Refused: the server admits only this test process.
        let refusing = try ServedPeers { $0.processID == UInt32(getpid()) }
        defer { refusing.close() }
        let refused = try await Tool.run(python, [script, refusing.server.address, Self.path.rawValue, Self.interface.rawValue], environment: environment)
        #expect(refused.stdout.hasPrefix("REFUSED org.freedesktop.DBus.Error."), "\(refused.stdout)\(refused.stderr)")
        #expect(refusing.record.asked.withLock { $0.count } == 1 && refusing.record.admitted.withLock { $0.isEmpty })
        #expect(refusing.record.accepted.withLock { $0.isEmpty })
        // Admitted: any pid but this one, i.e. the Python process the kernel names.
        let admitting = try ServedPeers { $0.processID != UInt32(getpid()) }
        defer { admitting.close() }
        let answered = try await Tool.run(python, [script, admitting.server.address, Self.path.rawValue, Self.interface.rawValue], environment: environment)
        #expect(answered.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hello, python", "\(answered.stdout)\(answered.stderr)")
        #expect(admitting.record.admitted.withLock { $0.first?.processID } != nil)
    }
}

/// A server in a fresh 0700 folder serving `Hello(s) → s` on every accepted peer; `admits`
/// decides who gets in, and every peer asked about and admitted is recorded. `settling`: how long
/// the handler takes before it exports (blocking the server's thread, as slow set-up would).
final class ServedPeers: Sendable {
    final class Record: Sendable {
        let accepted = Mutex<[DBusConnection]>([])
        let admitted = Mutex<[Credentials]>([])
        let asked = Mutex<[Credentials]>([])
    }

    let folder: URL
    let server: DBusServer
    let record = Record()

    init(settling: Duration = .zero, admits: @escaping @Sendable (Credentials) -> Bool) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-server-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let record = self.record
        server = try DBusServer(listeningAt: "unix:dir=\(folder.path)", admits: { peer in
            record.asked.withLock { $0.append(peer) }
            let yes = admits(peer)
            if yes { record.admitted.withLock { $0.append(peer) } }
            return yes
        }) { connection in
            if settling > .zero { usleep(UInt32(settling / .microseconds(1))) }
            _ = try? connection.export([DBusInterface(DBusServerTests.interface, methods: [
                DBusMethod("Hello", arguments: "s", results: "s") { call in [.string("hello, \(call.arguments[0].stringValue ?? "")")] },
            ])], at: DBusServerTests.path)
            record.accepted.withLock { $0.append(connection) }
        }
    }

    func close() {
        server.close()
        record.accepted.withLock { $0.forEach { $0.close() } }
        try? FileManager.default.removeItem(at: folder)
    }
}
