import Courier
import CourierNames
import Foundation
import Testing

/// The app's side of the Inbox contract, beside CourierInboxTests' (which drop through the broker's
/// Inbox and read back through `AppInbox`): what counts as inside it, and moving a file out without
/// ever overwriting one — any name, within a file system and across two.
@Suite("AppInbox")
struct AppInboxTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-appinbox-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// A read-only file (as the broker leaves a drop) named `name` in `folder`, holding `text`.
    func dropped(_ name: String, _ text: String, in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name, isDirectory: false)
        try Data(text.utf8).write(to: file)
        #expect(chmod(file.path, 0o444) == 0)
        return file
    }

    func mode(_ url: URL) -> mode_t {
        var status = stat()
        return stat(url.path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func onlyAFileDirectlyInTheInboxIsInside() {
        let environment = ["XDG_DATA_HOME": root.path]
        let inbox = AppInbox.folderURL(bundleIdentifier: "com.acme.todolist", environment: environment)
        func inside(_ url: URL) -> Bool { AppInbox.contains(url, bundleIdentifier: "com.acme.todolist", environment: environment) }
        #expect(inside(inbox.appendingPathComponent("Report.pdf")))
        #expect(inside(URL(fileURLWithPath: inbox.path + "/sub/../Report.pdf")))
        #expect(!inside(inbox.appendingPathComponent("sub/Report.pdf")))
        #expect(!inside(URL(fileURLWithPath: inbox.path + "/../Report.pdf")))
        #expect(!inside(URL(fileURLWithPath: inbox.path + "/../../../com.evil.app/Documents/Inbox/Report.pdf")))
        #expect(!inside(inbox))
        #expect(!inside(URL(string: "https://example.com" + inbox.path + "/Report.pdf")!))
        // Another app's Inbox is not this app's.
        #expect(!AppInbox.contains(inbox.appendingPathComponent("Report.pdf"), bundleIdentifier: "com.acme.other", environment: environment))
    }

    @Test func aTakenNameIsNumberedTheIOSWayAndNothingIsOverwritten() throws {
        let inbox = root.appendingPathComponent("Inbox", isDirectory: true)
        let documents = root.appendingPathComponent("Documents", isDirectory: true)
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: documents.appendingPathComponent("Report.pdf"))
        try Data("mine too".utf8).write(to: documents.appendingPathComponent("Report-1.pdf"))
        let moved = try AppInbox.moveOutOfInbox(try dropped("Report.pdf", "dropped", in: inbox), to: documents)
        #expect(moved.lastPathComponent == "Report-2.pdf")
        #expect(try String(contentsOf: documents.appendingPathComponent("Report.pdf"), encoding: .utf8) == "mine")
        #expect(try String(contentsOf: documents.appendingPathComponent("Report-1.pdf"), encoding: .utf8) == "mine too")
        #expect(try String(contentsOf: moved, encoding: .utf8) == "dropped")
        // A name without an extension, and a dot file, are numbered at the end.
        try Data("x".utf8).write(to: documents.appendingPathComponent("README"))
        #expect(try AppInbox.moveOutOfInbox(try dropped("README", "y", in: inbox), to: documents).lastPathComponent == "README-1")
        try Data("x".utf8).write(to: documents.appendingPathComponent(".profile"))
        #expect(try AppInbox.moveOutOfInbox(try dropped(".profile", "y", in: inbox), to: documents).lastPathComponent == ".profile-1")
    }

    /// /dev/shm is another file system than the temporary folder here: the move copies, flushes and
    /// removes the original, with the same no-overwrite rule.
    @Test func aMoveAcrossFileSystemsCopiesAndStillNeverOverwrites() throws {
        let shm = URL(fileURLWithPath: "/dev/shm/courier-appinbox-\(UUID().uuidString.prefix(8))", isDirectory: true)
        var tmpStatus = stat(), shmStatus = stat()
        guard stat("/dev/shm", &shmStatus) == 0, stat(root.path, &tmpStatus) == 0, shmStatus.st_dev != tmpStatus.st_dev else {
            Issue.record("/dev/shm is not a separate file system here: the cross-device move is untested")
            return
        }
        try FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: shm) }
        try Data("kept".utf8).write(to: shm.appendingPathComponent("Photo.png"))
        let file = try dropped("Photo.png", String(repeating: "p", count: 3 << 20), in: root.appendingPathComponent("Inbox", isDirectory: true))
        let moved = try AppInbox.moveOutOfInbox(file, to: shm)
        #expect(moved.lastPathComponent == "Photo-1.png")
        #expect(try Data(contentsOf: moved).count == 3 << 20)
        #expect(try String(contentsOf: shm.appendingPathComponent("Photo.png"), encoding: .utf8) == "kept")
        #expect(mode(moved) & 0o200 != 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aMoveToAFolderThatIsNotThereFailsAndKeepsTheFile() throws {
        let file = try dropped("note.txt", "n", in: root.appendingPathComponent("Inbox", isDirectory: true))
        let nowhere = root.appendingPathComponent("no-such-folder", isDirectory: true)
        #expect(throws: AppInbox.MoveError.self) { try AppInbox.moveOutOfInbox(file, to: nowhere) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "n")
    }
}
