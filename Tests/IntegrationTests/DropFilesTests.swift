import BusTestSupport
import CInbox
import Courier
import CourierTools
import CourierBroker
import CourierInbox
import DBus
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `DropFiles` on a real dbus-daemon: the sender passes open descriptors over the bus, the broker
/// places the files in the app's `Documents/Inbox` and the real todolist app (launched if needed)
/// opens them with `inbox=true`, adding one task per line.
@Suite("DropFiles on a private bus", .serialized)
struct DropFilesTests {
    static let todolist = "com.acme.todolist"

    /// A file in the fixture's folder, opened read-only (closed by the `UnixFD`).
    static func file(_ fixture: BrokerFixture, _ name: String, _ contents: [UInt8]) throws -> UnixFD {
        let path = fixture.root.appendingPathComponent("source-\(UUID().uuidString)-\(name.count)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents))
        return UnixFD(taking: open(path, O_RDONLY | O_CLOEXEC))
    }

    static func dropFiles(_ client: BrokerToolClient, to bundleID: String, _ files: [UnixFD], names: [String],
                          options: [String: DBusValue] = [:]) async throws -> [String] {
        let values = try await client.connection.call(
            "org.courier.Broker", path: "/org/courier/Broker", interface: "org.courier.Broker1", method: "DropFiles",
            [.string(bundleID), .fds(files), .strings(names), .vardict(options)], timeout: .seconds(120))
        return values.first?.stringArrayValue ?? []
    }

    static func inbox(_ fixture: BrokerFixture, _ bundleID: String = todolist) -> String {
        fixture.dataHome.appendingPathComponent("courier/containers/\(bundleID)/Documents/Inbox").path
    }

    /// The D-Bus error a call failed with.
    static func dbusError(_ body: () async throws -> Void) async -> DBusError? {
        do {
            try await body()
            return nil
        } catch let error as DBusError {
            return error
        } catch {
            return DBusError.failed("\(error)")
        }
    }

    @Test func aDropOnAnAppThatIsNotRunningLaunchesItOnceAndEveryLineBecomesATask() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let first = try Self.file(fixture, "a", Array("milk\n\n  eggs  \n".utf8))
        let second = try Self.file(fixture, "b", Array("bread\n".utf8))
        let empty = try Self.file(fixture, "c", [])
        let urls = try await Self.dropFiles(fixture.client, to: Self.todolist, [first, second, empty],
                                            names: ["groceries.txt", "groceries.txt", "empty.txt"])
        let inbox = Self.inbox(fixture)
        #expect(urls == ["groceries.txt", "groceries-1.txt", "empty.txt"].map { "file://\(inbox)/\($0)" })
        #expect(fixture.launcher.count == 1)
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["milk", "eggs", "bread"])
        var status = stat()
        #expect(stat(inbox + "/groceries.txt", &status) == 0 && status.st_mode & 0o7777 == 0o444)
        // The sender's descriptors are untouched (still open, offset unmoved).
        #expect(lseek(first.rawValue ?? -1, 0, SEEK_CUR) == 0)
    }

    @Test func anEmptyBundleIDGoesToTheDefaultAppForTheType() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let urls = try await Self.dropFiles(fixture.client, to: "", [try Self.file(fixture, "a", Array("call mum\n".utf8))], names: ["note.txt"])
        #expect(urls == ["file://\(Self.inbox(fixture))/note.txt"])
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["call mum"])
    }

    @Test func hostileNamesStayInsideTheInbox() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let names = ["../../etc/passwd.txt", "/", "a/b.txt", "new\nline.txt", ".hidden.txt", "-rf.txt",
                     String(repeating: "x", count: 300) + ".txt", "\u{202E}txt.exe.txt"]
        let files = try names.map { _ in try Self.file(fixture, "n", Array("task\n".utf8)) }
        let urls = try await Self.dropFiles(fixture.client, to: Self.todolist, files, names: names)
        let inbox = Self.inbox(fixture)
        let stored = urls.map { URL(string: $0)!.path }
        #expect(stored.allSatisfy { $0.hasPrefix(inbox + "/") && !$0.dropFirst(inbox.count + 1).contains("/") })
        #expect(stored.map { URL(fileURLWithPath: $0).lastPathComponent }.prefix(6) ==
                ["passwd.txt", "Untitled", "b.txt", "new_line.txt", "hidden.txt", "rf.txt"])
        #expect(stored[6].utf8.count - inbox.utf8.count - 1 == 255)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: inbox)).count == names.count)
    }

    @Test func fiftyConcurrentDropsOfTheSameNameMakeFiftyFiles() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let files = try (0..<50).map { try Self.file(fixture, "r", Array("task \($0)\n".utf8)) }
        let urls = try await withThrowingTaskGroup(of: [String].self) { group in
            for file in files {
                group.addTask { try await Self.dropFiles(fixture.client, to: Self.todolist, [file], names: ["Report.txt"]) }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        let expected = Set(["Report.txt"] + (1..<50).map { "Report-\($0).txt" })
        #expect(Set(urls.map { URL(string: $0)!.lastPathComponent }) == expected)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: Self.inbox(fixture))) == expected)
        #expect(fixture.launcher.count == 1)
        #expect(fixture.todoItems().count == 50)
    }

    @Test func aTypeTheAppDoesNotDeclareIsNotPermittedAndNothingIsLaunched() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        let error = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [try Self.file(fixture, "p", png)], names: ["photo.txt"]) }
        #expect(error?.name == "org.courier.Error.NotPermitted")
        #expect(error?.message.contains("public.png") == true, "\(error?.message ?? "")")
        #expect(fixture.launcher.count == 0)
        #expect(!FileManager.default.fileExists(atPath: Self.inbox(fixture)))
    }

    @Test func aDirectoryAPipeAndAnOPathDescriptorAreRefusedClearly() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let write = UnixFD(taking: ends[1])
        let cases: [(UnixFD, String)] = [
            (UnixFD(taking: open(fixture.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)), "is a directory"),
            (UnixFD(taking: ends[0]), "is a pipe"),
            (UnixFD(taking: open(fixture.root.path + "/../", cinbox_O_PATH | O_CLOEXEC)), "O_PATH"),
        ]
        for (descriptor, expected) in cases {
            let error = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [descriptor], names: ["x.txt"]) }
            #expect(error?.name == "org.courier.Error.InvalidFile")
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
        }
        write.close()
        #expect(fixture.launcher.count == 0)
    }

    /// `/proc/self/status` says it holds 0 bytes: the drop is refused by name (InvalidFile, exit
    /// 10), not delivered as an empty file, and nothing is launched.
    @Test func aFileWhoseSizeIsNotItsContentIsRefusedNotDeliveredEmpty() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let result = try await fixture.run(Products.path("courier"), ["drop", "/proc/self/status", "--to", Self.todolist])
        #expect(result.status == 10, "\(result)")
        #expect(result.error.contains("procfs (/proc), whose size (0 bytes) is not its content"), "\(result.error)")
        let status = UnixFD(taking: open("/proc/self/status", O_RDONLY | O_CLOEXEC))
        let error = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [status], names: ["status.txt"]) }
        #expect(error?.name == "org.courier.Error.InvalidFile", "\(String(describing: error))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: Self.inbox(fixture))) ?? []).isEmpty)
        #expect(fixture.launcher.count == 0)
    }

    @Test func aSymlinkedInboxIsRefusedAndNothingIsWrittenThrough() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let elsewhere = fixture.root.appendingPathComponent("elsewhere").path
        let documents = fixture.dataHome.appendingPathComponent("courier/containers/\(Self.todolist)/Documents").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: documents + "/Inbox", withDestinationPath: elsewhere)
        let error = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [try Self.file(fixture, "a", Array("x\n".utf8))], names: ["a.txt"]) }
        #expect(error?.name == "org.courier.Error.UnsafeContainer")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test func mismatchedNamesAreInvalidArguments() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let error = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [try Self.file(fixture, "a", [0x41])], names: []) }
        #expect(error?.name == "org.courier.Error.InvalidArguments")
    }

    @Test func courierDropPrintsTheInboxPathsAndExitsWithADistinctStatus() async throws {
        let fixture = try await BrokerFixture { try $0.todolist() }
        defer { fixture.tearDown() }
        let courier = Products.path("courier")
        let list = fixture.root.appendingPathComponent("weekend list.txt").path
        _ = FileManager.default.createFile(atPath: list, contents: Data("mow the lawn\n".utf8))
        let png = fixture.root.appendingPathComponent("photo.png").path
        _ = FileManager.default.createFile(atPath: png, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52]))

        let plain = try await fixture.run(courier, ["drop", list, "--to", Self.todolist])
        #expect(plain.status == 0, "\(plain.error)")
        #expect(plain.output == Self.inbox(fixture) + "/weekend list.txt\n")
        #expect(!plain.output.contains("\r"), "no progress bar when stdout is not a terminal")
        #expect(fixture.todoItems().compactMap { $0["task"] } == ["mow the lawn"])

        let json = try await fixture.run(courier, ["drop", "--json", list])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let files = object?["files"] as? [[String: Any]]
        #expect(object?["delivered"] as? Bool == true)
        #expect(files?.first?["path"] as? String == Self.inbox(fixture) + "/weekend list-1.txt")
        #expect((files?.first?["inbox_url"] as? String)?.hasPrefix("file://") == true)
        #expect(files?.first?["bundle_id"] as? String == Self.todolist)

        let cases: [([String], Int32, String)] = [
            (["drop", png, "--to", Self.todolist], 7, "public.png"),
            (["drop", png], 3, "photo.png: no app accepts public.png"),
            (["drop", fixture.root.path + "/missing.txt"], 66, "No such file"),
            (["drop", fixture.root.path, "--to", Self.todolist], 10, "is a directory"),
        ]
        for (arguments, expected, message) in cases {
            let result = try await fixture.run(courier, arguments)
            #expect(result.status == expected, "courier \(arguments): \(result.output) \(result.error)")
            #expect(result.error.contains(message), "courier \(arguments): \(result.error)")
        }
    }

    /// `NoSpace`, `LimitsExceeded` and `UnsafeContainer` are typed refusals with their own names on
    /// the bus and their own exit statuses in `courier drop`, and messages saying what to do.
    @Test func noSpaceLimitsAndAnUnsafeContainerHaveTheirOwnNamesAndExitStatuses() async throws {
        // Files up to 8 bytes pass the limits; the reserve no disk can keep makes every drop NoSpace.
        var limits = DropLimits.standard
        limits.maximumFileCount = 4
        limits.maximumFileBytes = 8
        limits.maximumDropBytes = 8
        limits.reservedFreeBytes = Int64.max / 4
        let fixture = try await BrokerFixture(inboxLimits: limits) { try $0.todolist() }
        defer { fixture.tearDown() }
        let courier = Products.path("courier")
        let small = fixture.root.appendingPathComponent("small.txt").path
        _ = FileManager.default.createFile(atPath: small, contents: Data("milk\n".utf8))
        let large = fixture.root.appendingPathComponent("large.txt").path
        _ = FileManager.default.createFile(atPath: large, contents: Data("milk\nbread\neggs\n".utf8))

        let noSpace = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [try Self.file(fixture, "s", Array("milk\n".utf8))], names: ["s.txt"]) }
        #expect(noSpace?.name == "org.courier.Error.NoSpace")
        #expect(noSpace?.message.contains("Free some space") == true, "\(noSpace?.message ?? "")")
        let tooLarge = await Self.dbusError { _ = try await Self.dropFiles(fixture.client, to: Self.todolist, [try Self.file(fixture, "l", Array("milk\nbread\neggs\n".utf8))], names: ["l.txt"]) }
        #expect(tooLarge?.name == "org.courier.Error.LimitsExceeded")

        var cases: [([String], Int32, String)] = [
            (["drop", small, "--to", Self.todolist], 12, "Free some space"),
            (["drop", large, "--to", Self.todolist], 11, "larger than the limit"),
        ]
        for (arguments, expected, message) in cases {
            let result = try await fixture.run(courier, arguments)
            #expect(result.status == expected, "courier \(arguments): \(result.output) \(result.error)")
            #expect(result.error.contains(message), "courier \(arguments): \(result.error)")
        }

        // A symbolic link planted on the way to the Inbox: refused before the space check.
        let documents = fixture.dataHome.appendingPathComponent("courier/containers/\(Self.todolist)/Documents").path
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: documents + "/Inbox")
        try FileManager.default.createSymbolicLink(atPath: documents + "/Inbox", withDestinationPath: fixture.root.path)
        cases = [(["drop", "--json", small, "--to", Self.todolist], 13, "never follows links")]
        for (arguments, expected, message) in cases {
            let result = try await fixture.run(courier, arguments)
            #expect(result.status == expected, "courier \(arguments): \(result.output) \(result.error)")
            #expect(result.error.contains(message), "courier \(arguments): \(result.error)")
            #expect(result.output.contains("org.courier.Error.UnsafeContainer"), "\(result.output)")
        }
        #expect(fixture.launcher.count == 0)
    }

    @Test func aTwoGiBSparseFileArrivesWholeWithItsHoles() async throws {
        // An app that declares any data: the fake app in echo mode (answers handled).
        let fixture = try await BrokerFixture { writer in
            let script = PythonPeers.path("fake_app.py")
            let plist: [String: Any] = [
                "CFBundleIdentifier": "com.acme.echo", "CFBundleName": "Echo",
                "CFBundleDocumentTypes": [["CFBundleTypeName": "Anything", "LSItemContentTypes": ["public.data"], "CFBundleTypeRole": "Viewer"]],
                "CourierLaunchArguments": [systemPython, script, "echo"],
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: writer.folder.appendingPathComponent("com.acme.echo.plist"))
        }
        defer { fixture.tearDown() }
        let path = fixture.root.appendingPathComponent("disk.img").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        let size: Int64 = 2 << 30
        #expect(ftruncate(fd, off_t(size)) == 0)
        #expect(pwrite(fd, "tail", 4, off_t(size - 4)) == 4)
        var source = stat()
        #expect(fstat(fd, &source) == 0)
        let sparse = Int64(source.st_blocks) * 512 < 16 << 20
        let urls = try await Self.dropFiles(fixture.client, to: "com.acme.echo", [UnixFD(taking: fd)], names: ["disk.img"])
        let copy = URL(string: urls[0])!.path
        var copied = stat()
        #expect(stat(copy, &copied) == 0)
        #expect(Int64(copied.st_size) == size)
        if sparse {  // on a file system that keeps holes, so does the copy
            #expect(Int64(copied.st_blocks) * 512 < 16 << 20, "the copy allocated \(copied.st_blocks * 512) bytes")
        }
        let reader = open(copy, O_RDONLY | O_CLOEXEC)
        defer { close(reader) }
        var tail = [UInt8](repeating: 0, count: 4)
        #expect(pread(reader, &tail, 4, off_t(size - 4)) == 4 && tail == Array("tail".utf8))
    }
}
