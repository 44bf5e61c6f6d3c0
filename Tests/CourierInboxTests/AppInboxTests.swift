import Courier
import CourierInbox
import CourierNames
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The app's side: finding its Inbox and moving a file out of it before changing it. `AppInbox`
/// lives in `Courier`, but its contract is this module's layout: each test drops through the Inbox
/// and reads back through `AppInbox`, so the two cannot drift; hence here, not in CourierTests.
@Suite struct AppInboxTests {
    let bundle = "com.acme.todolist"

    @Test func appFindsTheInboxTheBrokerWritesTo() {
        let environment = ["XDG_DATA_HOME": "/home/u/.data", "HOME": "/home/u"]
        let broker = Inbox(containersRoot: CourierLayout(environment: environment).containersRoot)
        #expect(AppInbox.folderURL(bundleIdentifier: bundle, environment: environment).path == broker.inboxPath(for: bundle))
        #expect(broker.inboxPath(for: bundle) == "/home/u/.data/courier/containers/com.acme.todolist/Documents/Inbox")
        #expect(AppInbox.folderURL(bundleIdentifier: bundle, environment: ["HOME": "/home/u"]).path
                == "/home/u/.local/share/courier/containers/com.acme.todolist/Documents/Inbox")
        // Launched by Courier: the container it was given.
        #expect(AppInbox.folderURL(bundleIdentifier: bundle, environment: ["COURIER_CONTAINER": "/c/com.acme.todolist"]).path
                == "/c/com.acme.todolist/Documents/Inbox")
    }

    @Test func movingOutMakesTheFileEditableAndNeverOverwrites() throws {
        let scratch = Scratch()
        let source = scratch.write("list.txt", Array("milk".utf8))
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "list.txt"),
                                      DropFile(descriptor: fd, suggestedName: "list.txt")], to: bundle)
        }
        let inboxFolder = AppInbox.folderURL(bundleIdentifier: bundle, environment: ["COURIER_CONTAINER": scratch.root + "/" + bundle])
        #expect(delivered.map { $0.url.deletingLastPathComponent().path } == [inboxFolder.path, inboxFolder.path])
        let documents = URL(fileURLWithPath: scratch.root + "/\(bundle)/Documents", isDirectory: true)

        let first = try AppInbox.moveOutOfInbox(delivered[0].url, to: documents)
        #expect(first.lastPathComponent == "list.txt")
        #expect(status(first.path).st_mode & 0o777 == 0o644)
        #expect(contents(first.path) == Array("milk".utf8))
        #expect(scratch.list(inboxFolder.path) == ["list-1.txt"])

        // list.txt now exists in Documents: the second one is numbered, the first untouched.
        let fd = open(first.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        #expect(fd >= 0)
        _ = write(fd, "\neggs", 5)
        close(fd)
        let renamed = URL(fileURLWithPath: inboxFolder.path + "/list.txt")
        try FileManager.default.moveItem(at: delivered[1].url, to: renamed)
        let second = try AppInbox.moveOutOfInbox(renamed, to: documents)
        #expect(second.lastPathComponent == "list-1.txt")
        #expect(contents(first.path) == Array("milk\neggs".utf8))
        #expect(scratch.list(inboxFolder.path) == [])
    }

    @Test func movingAFileThatIsNotThereFailsClearly() {
        let scratch = Scratch()
        let error = #expect(throws: AppInbox.MoveError.self) {
            try AppInbox.moveOutOfInbox(URL(fileURLWithPath: scratch.path + "/nope.txt"), to: URL(fileURLWithPath: scratch.path))
        }
        #expect(error?.errno == ENOENT)
        #expect(error?.message.contains("nope.txt") == true)
    }
}
