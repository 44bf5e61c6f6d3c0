import Foundation
import Testing
import CInbox
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// Only readable regular files that still exist are accepted; everything else is refused with a
/// typed error that names the file, and nothing is written.
@Suite struct DescriptorCheckTests {
    let bundle = "com.acme.todolist"

    /// Drops `fd` as "thing.txt" and returns the error; the Inbox must stay unwritten.
    func refusal(_ scratch: Scratch, _ fd: Int32) -> InboxError? {
        defer { #expect(scratch.list(scratch.root) == nil, "nothing may be written for a refused drop") }
        do {
            _ = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "thing.txt")], to: bundle)
            return nil
        } catch {
            return error
        }
    }

    @Test func directoryIsRefused() throws {
        let scratch = Scratch()
        let error = try scratch.withDescriptor(scratch.path, flags: O_RDONLY | O_DIRECTORY) { refusal(scratch, $0) }
        #expect(error?.code == .notRegularFile)
        #expect(error?.message.contains("file 1 (\"thing.txt\") is a directory") == true)
        #expect(error?.fileIndex == 0)
    }

    @Test func pipeIsRefused() {
        let scratch = Scratch()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let error = refusal(scratch, ends[0])
        #expect(error?.code == .notRegularFile)
        #expect(error?.message.contains("is a pipe") == true)
    }

    @Test func socketIsRefused() {
        let scratch = Scratch()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        #expect(refusal(scratch, pair[0])?.message.contains("is a socket") == true)
    }

    @Test func deviceIsRefused() throws {
        let scratch = Scratch()
        let error = try scratch.withDescriptor("/dev/null") { refusal(scratch, $0) }
        #expect(error?.code == .notRegularFile)
        #expect(error?.message.contains("character device") == true)
    }

    @Test func pathOnlyDescriptorIsRefused() throws {
        let scratch = Scratch()
        let file = scratch.write("data.txt", Array("secret".utf8))
        let error = try scratch.withDescriptor(file, flags: cinbox_O_PATH) { fd in
            // An O_PATH descriptor cannot be read at all.
            var byte: UInt8 = 0
            #expect(read(fd, &byte, 1) == -1 && errno == EBADF)
            return refusal(scratch, fd)
        }
        #expect(error?.code == .notReadable)
        #expect(error?.message.contains("O_PATH") == true)
    }

    @Test func writeOnlyDescriptorIsRefused() throws {
        let scratch = Scratch()
        let file = scratch.write("data.txt", Array("secret".utf8))
        let error = try scratch.withDescriptor(file, flags: O_WRONLY) { refusal(scratch, $0) }
        #expect(error?.code == .notReadable)
        #expect(error?.message.contains("write-only") == true)
    }

    @Test func deletedFileIsRefused() throws {
        let scratch = Scratch()
        let file = scratch.write("gone.txt", Array("bye".utf8))
        let error = try scratch.withDescriptor(file) { fd in
            unlink(file)
            return refusal(scratch, fd)
        }
        #expect(error?.code == .deletedFile)
        #expect(error?.message.contains("deleted") == true)
    }

    @Test func closedDescriptorIsRefused() {
        let scratch = Scratch()
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        close(fd)
        #expect(refusal(scratch, fd)?.code == .notReadable)
    }

    @Test func oneBadFileRefusesTheWholeDrop() throws {
        let scratch = Scratch()
        let good = scratch.write("good.txt", Array("ok".utf8))
        let error: InboxError? = try scratch.withDescriptor(good) { fd in
            try scratch.withDescriptor(scratch.path, flags: O_RDONLY | O_DIRECTORY) { directory -> InboxError? in
                do {
                    _ = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "good.txt"),
                                                  DropFile(descriptor: directory, suggestedName: "folder")], to: bundle)
                    return nil
                } catch let error as InboxError { return error }
            }
        }
        #expect(error?.fileIndex == 1)
        #expect(error?.message.contains("file 2 (\"folder\")") == true)
        #expect(scratch.list(scratch.root) == nil)
    }
}

/// An unnamed file made in the Inbox itself (`Inbox.openUnnamedFile(for:)`) is linked into place,
/// not copied: one write of each byte. An unnamed file made anywhere else is a deleted file.
@Suite struct UnnamedFileAdoptionTests {
    let bundle = "com.acme.todolist"

    @Test func anUnnamedFileMadeInTheInboxIsLinkedNotCopied() throws {
        let scratch = Scratch()
        let inbox = scratch.inbox()
        let fd = try inbox.openUnnamedFile(for: bundle)
        defer { close(fd) }
        let bytes = Array("written once\n".utf8)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
        let delivered = try inbox.drop([DropFile(descriptor: fd, suggestedName: "once.txt")], to: bundle)
        var written = stat(), placed = stat()
        #expect(fstat(fd, &written) == 0 && stat(delivered[0].path, &placed) == 0)
        #expect(placed.st_ino == written.st_ino, "the same inode: linked, not copied")
        #expect(placed.st_mode & 0o777 == 0o444)
        #expect(FileManager.default.contents(atPath: delivered[0].path) == Data(bytes))
    }

    @Test func anUnnamedFileMadeElsewhereIsRefusedAsDeleted() throws {
        let scratch = Scratch()
        close(try scratch.inbox().openUnnamedFile(for: bundle))   // the Inbox exists
        let fd = open(scratch.path, cinbox_O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        _ = write(fd, "x", 1)
        do {
            _ = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "elsewhere.txt")], to: bundle)
            Issue.record("an unnamed file from outside the Inbox was taken")
        } catch {
            #expect(error.code == .deletedFile, "\(error)")
        }
    }
}
