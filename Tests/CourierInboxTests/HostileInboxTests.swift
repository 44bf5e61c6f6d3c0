import Foundation
import Testing
import CourierNames
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// What an app (or a sender) can plant or change cannot make a drop write elsewhere, overwrite,
/// hang, or leave a partial file.
@Suite struct HostileInboxTests {
    let bundle = "com.acme.todolist"

    @Test func aSymlinkPlantedUnderTheNameIsNeitherFollowedNorReplaced() throws {
        let scratch = Scratch()
        let inboxPath = scratch.inbox().inboxPath(for: bundle)
        try FileManager.default.createDirectory(atPath: inboxPath, withIntermediateDirectories: true)
        let victim = scratch.write("victim.txt", Array("precious".utf8))
        try FileManager.default.createSymbolicLink(atPath: inboxPath + "/Report.txt", withDestinationPath: victim)
        let source = scratch.write("new.txt", Array("dropped".utf8))
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "Report.txt")], to: bundle)
        }
        #expect(delivered.map(\.name) == ["Report-1.txt"])
        #expect(contents(victim) == Array("precious".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: inboxPath + "/Report.txt") == victim)
    }

    @Test func aSourceThatShrinksMidCopyIsRefusedAndLeavesNothing() throws {
        let scratch = Scratch()
        let source = scratch.path + "/shrinking.bin"
        _ = FileManager.default.createFile(atPath: source, contents: Data(repeating: 0x5A, count: 64 << 20))
        let error = try scratch.withDescriptor(source) { fd -> InboxError? in
            do {
                // A reflink (XFS, Btrfs) would be a snapshot in one call, with nothing to interrupt.
                var inbox = scratch.inbox()
                inbox.clonesWhereSupported = false
                _ = try inbox.drop([DropFile(descriptor: fd, suggestedName: "big.bin")], to: bundle) { progress in
                    if progress.fileBytesCopied > 0 && progress.fileBytesCopied < progress.fileBytes {
                        _ = truncate(source, 1024)  // the sender cuts the file while it is copied
                    }
                }
                return nil
            } catch let error as InboxError {
                return error
            }
        }
        #expect(error?.code == .sourceChanged)
        #expect(error?.message.contains("shrank while it was copied") == true)
        #expect(scratch.list(scratch.inbox().inboxPath(for: bundle)) == [])
        #expect(scratch.openDescriptorsInside().isEmpty)
    }

    /// `/proc` files report 0 bytes whatever they hold (`/sys` files 4096): a copy of the reported
    /// size would deliver an empty file as if it were the file. Refused, named, nothing written.
    @Test(arguments: ["/proc/self/status", "/proc/cpuinfo", "/sys/kernel/mm/transparent_hugepage/enabled"])
    func aFileWhoseSizeIsNotItsContentIsRefusedNotDeliveredEmpty(_ path: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else { return }
        let scratch = Scratch()
        let error = try scratch.withDescriptor(path) { fd -> InboxError? in
            do {
                _ = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "status.txt")], to: bundle)
                return nil
            } catch let error as InboxError {
                return error
            }
        }
        #expect(error?.code == .untrustedSize, "\(String(describing: error))")
        #expect(error?.courierErrorCode == .invalidFile)
        #expect(error?.message.contains("is not its content") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("cat FILE > copy.txt") == true)
        #expect((scratch.list(scratch.inbox().inboxPath(for: bundle)) ?? []).isEmpty)
    }

    @Test func aFIFOPlantedUnderTheTemporaryPatternDoesNotHangTheSweep() throws {
        let scratch = Scratch()
        let inboxPath = scratch.inbox().inboxPath(for: bundle)
        try FileManager.default.createDirectory(atPath: inboxPath, withIntermediateDirectories: true)
        #expect(mkfifo(inboxPath + "/.courier-partial-fifo", 0o600) == 0)
        let report = scratch.inbox().sweepLeftovers()
        #expect(report.removed == [inboxPath + "/.courier-partial-fifo"])
        #expect(scratch.list(inboxPath) == [])
    }

    @Test func withoutSyncingToDiskTheDropKeepsEveryOtherGuarantee() throws {
        let scratch = Scratch()
        let source = scratch.write("a.txt", Array("text".utf8))
        let inbox = Inbox(containersRoot: scratch.root, synchronizesToDisk: false)
        let delivered = try scratch.withDescriptor(source) { fd in
            try inbox.drop([DropFile(descriptor: fd, suggestedName: "a.txt"), DropFile(descriptor: fd, suggestedName: "a.txt")], to: bundle)
        }
        #expect(delivered.map(\.name) == ["a.txt", "a-1.txt"])
        #expect(delivered.allSatisfy { status($0.path).st_mode & 0o7777 == 0o444 && contents($0.path) == Array("text".utf8) })
    }
}
