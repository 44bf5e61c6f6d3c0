import BusTestSupport
import CInbox
import Courier
import CourierTools
import CourierProcess
import DBus
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `DropFiles` against a real `courierd` process: killed in the middle of a large copy, and its
/// descriptor count across many drops.
@Suite("DropFiles against a courierd process", .serialized)
struct DropDaemonTests {
    static let todolist = "com.acme.todolist"
    static let sink = "com.acme.sink"

    /// A private bus, the todolist manifest, and `courierd` started (and restartable) on it.
    final class Daemon: @unchecked Sendable {
        let bus: PrivateBus
        let root: URL
        let dataHome: URL
        let manifests: URL
        let environment: [String: String]
        let client: BrokerToolClient
        private(set) var courierd: ChildProcess?

        init() throws {
            bus = try PrivateBus()
            root = bus.directory.appendingPathComponent("daemon", isDirectory: true)
            dataHome = root.appendingPathComponent("data", isDirectory: true)
            manifests = root.appendingPathComponent("manifests", isDirectory: true)
            try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
            try BrokerFixture.ManifestWriter(folder: manifests).todolist()
            // An app that takes any data and cannot be launched: a drop on it copies, then fails
            // to deliver, with no side effect (the kill test's target).
            let sink: [String: Any] = [
                "CFBundleIdentifier": DropDaemonTests.sink, "CFBundleName": "Sink",
                "CFBundleDocumentTypes": [["CFBundleTypeName": "Anything", "LSItemContentTypes": ["public.data"], "CFBundleTypeRole": "Viewer"]],
            ]
            try PropertyListSerialization.data(fromPropertyList: sink, format: .xml, options: 0)
                .write(to: manifests.appendingPathComponent("\(DropDaemonTests.sink).plist"))
            var environment = bus.environment(homesIn: root)
            environment["COURIER_LOG_LEVEL"] = "error"
            self.environment = environment
            client = BrokerToolClient(connection: try bus.connect())
        }

        /// Starts courierd (the shared Spawner, reaped with waitpid: no run loop involved) and waits
        /// (bounded) until it owns org.courier.Broker.
        func start() async throws {
            let path = Products.path("courierd")
            courierd = try Spawner.start(path: path, arguments: [path, "--manifests", manifests.path], environment: environment,
                                         standardOutput: .discard, standardError: .discard)
            for _ in 0..<500 where !(await client.brokerIsRunning()) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(await client.brokerIsRunning(), "courierd did not take org.courier.Broker")
        }

        /// SIGKILL, then reap.
        func kill() {
            courierd?.kill()
            courierd = nil
        }

        func tearDown() {
            kill()
            client.connection.close()
            bus.stop()
        }

        func inbox(_ bundleID: String = DropDaemonTests.todolist) -> String {
            dataHome.appendingPathComponent("courier/containers/\(bundleID)/Documents/Inbox").path
        }

        func openFile(_ name: String, _ contents: Data) -> UnixFD {
            let path = root.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: path, contents: contents)
            return UnixFD(taking: open(path, O_RDONLY | O_CLOEXEC))
        }

        func drop(_ files: [UnixFD], names: [String], to bundleID: String = DropDaemonTests.todolist,
                  options: [String: DBusValue] = [:]) async throws -> [String] {
            try await DropFilesTests.dropFiles(client, to: bundleID, files, names: names, options: options)
        }

        var descriptorCount: Int {
            guard let pid = courierd?.pid else { return -1 }
            return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        }
    }

    /// Whether `folder`'s file system clones files (`FICLONE`), as XFS and Btrfs do and ext4 does not.
    static func fileSystemClones(in folder: String) -> Bool {
        let source = open(folder + "/clone-probe-source", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let target = open(folder + "/clone-probe-target", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(source)
            close(target)
            unlink(folder + "/clone-probe-source")
            unlink(folder + "/clone-probe-target")
        }
        guard source >= 0, target >= 0, write(source, "probe", 5) == 5 else { return false }
        return cinbox_clone_file(target, source) == 0
    }

    @Test func killingTheBrokerMidCopyLeavesNoPartialFileAndTheNextDropWorks() async throws {
        let daemon = try Daemon()
        defer { daemon.tearDown() }
        try await daemon.start()
        // 512 MiB of data (no holes), dropped on an app that takes any data.
        let path = daemon.root.appendingPathComponent("big.bin").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let writer = try #require(FileHandle(forWritingAtPath: path))
        let block = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        for _ in 0..<64 { writer.write(block) }
        try writer.close()
        let size = 512 << 20
        let big = UnixFD(taking: open(path, O_RDONLY | O_CLOEXEC))

        let token = UUID().uuidString
        let signals = try await daemon.client.connection.signals(matching: MatchRule(
            path: "/org/courier/Broker", interface: "org.courier.Broker1", member: "DropProgress", arguments: [0: token]))
        let drop = Task { try await daemon.drop([big], names: ["big.bin"], to: Self.sink, options: ["progress-token": .string(token)]) }
        var killedMidCopy = false
        for await signal in signals {
            // The first report comes as the copy starts.
            if let copied = signal.body[1].uint64Value, let total = signal.body[2].uint64Value {
                daemon.kill()
                killedMidCopy = copied < total
            }
            break
        }
        // Where the file system has reflinks (XFS, Btrfs) the broker clones the file in one call:
        // there is no middle of the copy to kill it in, only the rest of the drop.
        let reflinks = Self.fileSystemClones(in: daemon.root.path)
        #expect(killedMidCopy || reflinks)
        let result = await drop.result
        if killedMidCopy {
            #expect((try? result.get()) == nil, "the drop cannot succeed: its broker was killed")
        }
        // No partial file under any visible name (a complete one, had the copy won the race, is fine).
        let inbox = daemon.inbox(Self.sink)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []
        for name in left where !name.hasPrefix(".courier-partial-") {
            let attributes = try FileManager.default.attributesOfItem(atPath: inbox + "/" + name)
            #expect((attributes[.size] as? Int) == size, "\(name) is visible with \(attributes[.size] ?? 0) of \(size) bytes")
        }

        // A new broker sweeps leftovers at start-up, and the next drop works.
        try await daemon.start()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).allSatisfy { !$0.hasPrefix(".") })
        let urls = try await daemon.drop([daemon.openFile("small.txt", Data("after the crash\n".utf8))], names: ["small.txt"])
        #expect(urls == ["file://\(daemon.inbox())/small.txt"])
    }

    @Test func theBrokersDescriptorCountIsTheSameBeforeAndAfterDrops() async throws {
        let daemon = try Daemon()
        defer { daemon.tearDown() }
        try await daemon.start()
        // Warm up: the first drop launches the app and opens what stays open (its connection, …).
        _ = try await daemon.drop([daemon.openFile("w.txt", Data("warm up\n".utf8))], names: ["w.txt"])
        // The warm-up call's own descriptors close when libdbus releases its messages, a moment
        // later: count only once the number has held still for 50 ms.
        var before = daemon.descriptorCount
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(50))
            let now = daemon.descriptorCount
            if now == before { break }
            before = now
        }
        let directory = UnixFD(taking: open(daemon.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52])
        for round in 0..<10 {
            let text = daemon.openFile("t\(round).txt", Data("task \(round)\n".utf8))
            _ = try await daemon.drop([text, text], names: ["t.txt", "t.txt"])
            _ = try? await daemon.drop([directory], names: ["dir"])
            _ = try? await daemon.drop([daemon.openFile("p\(round).png", png)], names: ["p.png"])
            _ = try? await daemon.drop([text], names: [])
        }
        // Descriptors of finished calls are released when their messages are: allow a moment.
        var after = daemon.descriptorCount
        for _ in 0..<200 where after > before {
            try await Task.sleep(for: .milliseconds(10))
            after = daemon.descriptorCount
        }
        #expect(before > 0)
        // A leak shows as growth; a descriptor that was still closing when counted may be gone.
        #expect(after <= before, "courierd had \(before) descriptors open before 40 drops and \(after) after")
    }
}
