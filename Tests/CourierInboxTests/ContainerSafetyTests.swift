import Foundation
import Testing
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// The Inbox is reached without following links an app could plant in its container.
@Suite struct ContainerSafetyTests {
    let bundle = "com.acme.todolist"

    func dropNote(_ scratch: Scratch) throws(InboxError) -> [DeliveredFile] {
        let source = scratch.write("note.txt", Array("hi".utf8))
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        return try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "note.txt")], to: bundle)
    }

    @Test(arguments: ["Documents/Inbox", "Documents"])
    func symlinkedFolderIsRefused(linked: String) throws {
        let scratch = Scratch()
        let elsewhere = scratch.path + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let link = scratch.root + "/\(bundle)/" + linked
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)

        let error = #expect(throws: InboxError.self) { try dropNote(scratch) }
        #expect(error?.code == .unsafeFolder)
        #expect(error?.message.contains("is a symbolic link") == true)
        #expect(error?.message.contains(linked) == true)
        #expect(scratch.list(elsewhere) == [])
        #expect(scratch.openDescriptorsInside().isEmpty)
    }

    @Test func symlinkedContainerIsRefused() throws {
        let scratch = Scratch()
        let elsewhere = scratch.path + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere + "/Documents/Inbox", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.root + "/" + bundle, withDestinationPath: elsewhere)
        #expect(throws: InboxError.self) { try dropNote(scratch) }
        #expect(scratch.list(elsewhere + "/Documents/Inbox") == [])
    }

    @Test func fileInPlaceOfTheInboxIsRefused() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.root + "/\(bundle)/Documents", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: scratch.root + "/\(bundle)/Documents/Inbox", contents: Data())
        let error = #expect(throws: InboxError.self) { try dropNote(scratch) }
        #expect(error?.message.contains("is not a folder") == true)
    }

    @Test func missingFoldersAreCreatedPrivate() throws {
        let scratch = Scratch()
        _ = try dropNote(scratch)
        for folder in ["", "/\(bundle)", "/\(bundle)/Documents", "/\(bundle)/Documents/Inbox"] {
            #expect(status(scratch.root + folder).st_mode & 0o777 == 0o700)
        }
    }

    @Test(arguments: ["", ".", "..", "../etc", "a/b", "-x", ".hidden", "com.acme\u{0}x", String(repeating: "a", count: 256)])
    func bundleIdentifierThatCannotNameAFolderIsRefused(bundle: String) {
        let scratch = Scratch()
        let source = scratch.write("note.txt", Array("hi".utf8))
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let error = #expect(throws: InboxError.self) {
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "note.txt")], to: bundle)
        }
        #expect(error?.code == .invalidBundleIdentifier)
        #expect(scratch.list(scratch.path) == ["note.txt"])
    }
}
