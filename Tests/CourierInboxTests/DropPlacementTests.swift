import Foundation
import Testing
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// Files land complete, read-only and uniquely named in `<root>/<bundle-id>/Documents/Inbox`.
@Suite struct DropPlacementTests {
    let bundle = "com.acme.todolist"

    @Test(arguments: [StagingStrategy.unnamedTemporaryFile, .namedTemporaryFile])
    func droppedFileIsAReadOnlyCopyInTheInbox(staging: StagingStrategy) throws {
        let scratch = Scratch()
        let source = scratch.write("notes.txt", Array("milk\neggs\n".utf8))
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox(staging: staging).drop([DropFile(descriptor: fd, suggestedName: "notes.txt")], to: bundle)
        }
        let inbox = scratch.root + "/\(bundle)/Documents/Inbox"
        #expect(delivered == [DeliveredFile(index: 0, name: "notes.txt", path: inbox + "/notes.txt", size: 10)])
        #expect(delivered[0].url.absoluteString == "file://" + inbox + "/notes.txt")
        #expect(contents(inbox + "/notes.txt") == Array("milk\neggs\n".utf8))
        #expect(status(inbox + "/notes.txt").st_mode & 0o7777 == 0o444)
        #expect(scratch.list(inbox) == ["notes.txt"])
        // A copy, not a link: changing the original does not change the Inbox file.
        #expect(status(inbox + "/notes.txt").st_ino != status(source).st_ino)
        scratch.write("notes.txt", Array("changed".utf8))
        #expect(contents(inbox + "/notes.txt") == Array("milk\neggs\n".utf8))
        #expect(scratch.openDescriptorsInside().isEmpty)
    }

    @Test func hostileNamesLandInsideTheInbox() throws {
        let scratch = Scratch()
        let source = scratch.write("payload", Array("x".utf8))
        let names: [[UInt8]] = [
            Array("../../etc/passwd".utf8), Array("/".utf8), Array("a/b".utf8), Array("nul\u{0}byte".utf8),
            Array("new\nline".utf8), [0x62, 0x61, 0x64, 0xFF, 0xFE], Array(repeating: 0x61, count: 300),
            Array(".hidden".utf8), Array("-rf".utf8),
        ]
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop(names.map { DropFile(descriptor: fd, suggestedNameBytes: $0) }, to: bundle)
        }
        let inbox = scratch.root + "/\(bundle)/Documents/Inbox"
        #expect(delivered.map(\.name) == [
            "passwd", "Untitled", "b", "nul_byte", "new_line", "bad\u{FFFD}\u{FFFD}",
            String(repeating: "a", count: 255), "hidden", "rf",
        ])
        #expect(Set(scratch.list(inbox) ?? []) == Set(delivered.map(\.name)))
        for file in delivered {
            #expect(file.path == inbox + "/" + file.name)
            #expect(contents(file.path) == Array("x".utf8))
        }
        // Nothing escaped the Inbox.
        #expect(scratch.list(scratch.path)?.sorted() == ["containers", "payload"])
    }

    @Test func anExistingNameIsNeverOverwritten() throws {
        let scratch = Scratch()
        let inboxPath = scratch.inbox().inboxPath(for: bundle)
        try FileManager.default.createDirectory(atPath: inboxPath, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: inboxPath + "/Report.pdf", contents: Data("the app's own".utf8))
        let source = scratch.write("r", Array("new".utf8))
        let names = try scratch.withDescriptor(source) { fd in
            try (0..<3).map { _ in
                try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "Report.pdf")], to: bundle)[0].name
            }
        }
        #expect(names == ["Report-1.pdf", "Report-2.pdf", "Report-3.pdf"])
        #expect(contents(inboxPath + "/Report.pdf") == Array("the app's own".utf8))
    }

    @Test(arguments: [StagingStrategy.unnamedTemporaryFile, .namedTemporaryFile])
    func fiftyConcurrentDropsOfTheSameNameMakeFiftyFiles(staging: StagingStrategy) async throws {
        let scratch = Scratch()
        let inbox = scratch.inbox(staging: staging)
        let bundle = self.bundle
        let sources = (0..<50).map { scratch.write("src\($0)", Array("copy \($0)".utf8)) }
        let delivered = try await withThrowingTaskGroup(of: DeliveredFile.self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask {
                    let fd = open(source, O_RDONLY | O_CLOEXEC)
                    defer { close(fd) }
                    let file = try await inbox.drop([DropFile(descriptor: fd, suggestedName: "Report.pdf")], to: bundle)[0]
                    #expect(contents(file.path) == Array("copy \(index)".utf8))
                    return file
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let expected = Set(["Report.pdf"] + (1..<50).map { "Report-\($0).pdf" })
        #expect(Set(delivered.map(\.name)) == expected)
        #expect(Set(scratch.list(inbox.inboxPath(for: bundle)) ?? []) == expected)
        #expect(scratch.openDescriptorsInside().isEmpty)
    }

    @Test func zeroByteFileIsDelivered() throws {
        let scratch = Scratch()
        let source = scratch.write("empty.txt", [])
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "empty.txt")], to: bundle)
        }
        #expect(delivered[0].size == 0)
        #expect(status(delivered[0].path).st_size == 0)
        #expect(status(delivered[0].path).st_mode & 0o7777 == 0o444)
    }

    @Test func severalFilesArriveInOrderWithProgress() throws {
        let scratch = Scratch()
        let big = [UInt8]((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let first = scratch.write("a.bin", big)
        let second = scratch.write("b.txt", Array("small".utf8))
        var reports: [DropProgress] = []
        let delivered = try scratch.withDescriptor(first) { a in
            try scratch.withDescriptor(second) { b in
                try scratch.inbox().drop([DropFile(descriptor: a, suggestedName: "a.bin"), DropFile(descriptor: b, suggestedName: "b.txt")],
                                         to: bundle) { reports.append($0) }
            }
        }
        #expect(delivered.map(\.name) == ["a.bin", "b.txt"])
        #expect(contents(delivered[0].path) == big)
        let total = Int64(big.count + 5)
        #expect(reports.last == DropProgress(fileIndex: 1, fileCount: 2, fileBytesCopied: 5, fileBytes: 5, bytesCopied: total, totalBytes: total))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesCopied <= $1.bytesCopied })
    }

    @Test func theSendersFileOffsetIsLeftAlone() throws {
        let scratch = Scratch()
        let source = scratch.write("offset.txt", Array("0123456789".utf8))
        try scratch.withDescriptor(source) { fd in
            lseek(fd, 4, SEEK_SET)
            let delivered = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "offset.txt")], to: bundle)
            #expect(contents(delivered[0].path) == Array("0123456789".utf8))  // the whole file, from byte 0
            #expect(lseek(fd, 0, SEEK_CUR) == 4)
        }
    }

    /// Larger than two copy chunks (32 MiB), not a multiple of them: the write-back pipeline and
    /// the preallocated blocks deliver every byte, and no more.
    @Test(arguments: [StagingStrategy.unnamedTemporaryFile, .namedTemporaryFile])
    func aFileOfSeveralChunksArrivesByteForByte(staging: StagingStrategy) throws {
        let scratch = Scratch()
        // Random bytes: nothing a file system could dedupe or leave as a hole.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let bytes = try #require(try random.read(upToCount: (70 << 20) + 12_345))
        try random.close()
        let source = scratch.path + "/big.bin"
        try bytes.write(to: URL(fileURLWithPath: source))
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox(staging: staging).drop([DropFile(descriptor: fd, suggestedName: "big.bin")], to: bundle)
        }
        #expect(status(delivered[0].path).st_size == off_t(bytes.count))
        #expect(FileManager.default.contents(atPath: delivered[0].path) == bytes)
        #expect(status(delivered[0].path).st_mode & 0o7777 == 0o444)
    }

    @Test(.enabled(if: Scratch.fileSystemKeepsHoles(), "the temporary folder's file system does not keep holes in sparse files"))
    func twoGiBSparseFileIsCopiedWithItsHoles() throws {
        let scratch = Scratch()
        let source = scratch.path + "/sparse.img"
        let size: Int64 = 2 << 30
        let fd = open(source, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        #expect(ftruncate(fd, off_t(size)) == 0)
        let marks: [(Int64, String)] = [(0, "head"), (1 << 30, "middle"), (size - 4, "tail")]
        for (offset, text) in marks {
            _ = text.withCString { pwrite(fd, $0, strlen($0), off_t(offset)) }
        }
        let delivered = try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "disk.img")], to: bundle)
        let copy = status(delivered[0].path)
        #expect(copy.st_size == size)
        #expect(Int64(copy.st_blocks) * 512 < 16 << 20, "the copy allocated \(copy.st_blocks * 512) bytes")
        let copyFD = open(delivered[0].path, O_RDONLY | O_CLOEXEC)
        defer { close(copyFD) }
        for (offset, text) in marks {
            var buffer = [UInt8](repeating: 0, count: text.utf8.count)
            _ = pread(copyFD, &buffer, buffer.count, off_t(offset))
            #expect(buffer == Array(text.utf8))
        }
        var zero = [UInt8](repeating: 1, count: 4)
        _ = pread(copyFD, &zero, 4, off_t(size / 4))
        #expect(zero == [0, 0, 0, 0])
    }
}

extension Scratch {
    /// Whether a 64 MiB file with one byte written takes (much) less than 64 MiB on disk here.
    static func fileSystemKeepsHoles() -> Bool {
        let scratch = Scratch()
        let fd = open(scratch.path + "/probe", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        guard fd >= 0, ftruncate(fd, 64 << 20) == 0, pwrite(fd, "x", 1, 32 << 20) == 1 else { return false }
        var result = stat()
        return fstat(fd, &result) == 0 && Int64(result.st_blocks) * 512 < 1 << 20
    }
}
