import Foundation
import Testing
import CourierInbox
import CourierProcess
#if canImport(Glibc)
import Glibc
#endif

/// Tests that need a process of their own: a writer killed with SIGKILL mid-copy, and an exact
/// count of the process's descriptors (which other tests running in parallel would disturb).
///
/// The child is this very test binary, re-run with `--filter` on `childProcessEntryPoint` and the
/// job in the environment; that test does nothing in a normal run.
@Suite struct ChildProcessTests {
    static let jobVariable = "COURIER_INBOX_CHILD_JOB"
    let bundle = "com.acme.todolist"

    /// Starts the child running `job` with `environment`; its output goes to `log`.
    static func startChild(job: String, environment: [String: String], log: String) throws -> ChildProcess {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return try Spawner.start(
            path: executable, arguments: [executable, "--testing-library", "swift-testing", "--filter", "childProcessEntryPoint"],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging([jobVariable: job]) { $1 },
            standardOutput: .file(log), standardError: .standardOutput)
    }

    @Test(arguments: [StagingStrategy.namedTemporaryFile, .unnamedTemporaryFile])
    func writerKilledMidCopyLeavesNoVisibleFileAndTheSweepCleansUp(staging: StagingStrategy) throws {
        let scratch = Scratch()
        // 64 MiB of data: the child copies 32 MiB, then stops in its progress callback.
        let source = scratch.path + "/big.bin"
        let block = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let handle = try #require(FileHandle(forWritingAtPath: { _ = FileManager.default.createFile(atPath: source, contents: nil); return source }()))
        for _ in 0..<64 { handle.write(Data(block)) }
        try handle.close()
        let marker = scratch.path + "/copying"
        let child = try Self.startChild(job: "blocked-copy", environment: [
            "COURIER_INBOX_ROOT": scratch.root, "COURIER_INBOX_SOURCE": source, "COURIER_INBOX_MARKER": marker,
            "COURIER_INBOX_STAGING": staging == .namedTemporaryFile ? "named" : "unnamed",
        ], log: scratch.path + "/child.log")
        var ended: ChildProcess.Termination?
        defer { if ended == nil { child.kill() } }

        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline {
            ended = child.poll()
            if ended != nil { break }
            usleep(10_000)
        }
        try #require(FileManager.default.fileExists(atPath: marker),
                     "the child never reached the middle of the copy: \(String(decoding: contents(scratch.path + "/child.log"), as: UTF8.self))")
        child.signal(SIGKILL)
        ended = child.wait()
        #expect(ended == .signaled(SIGKILL))

        let inboxPath = scratch.inbox().inboxPath(for: bundle)
        let left = scratch.list(inboxPath) ?? []
        #expect(left.allSatisfy { $0.hasPrefix(Inbox.temporaryNamePrefix) }, "visible files after the kill: \(left)")
        if staging == .namedTemporaryFile {
            #expect(left.count == 1)
            #expect(left.first.map { status(inboxPath + "/" + $0).st_size } ?? 0 > 0)
        } else {
            #expect(left.isEmpty, "an unnamed temporary file vanishes with its writer")
        }
        let report = scratch.inbox().sweepLeftovers()
        #expect(report.removed.count == left.count)
        #expect(scratch.list(inboxPath) == [])

        // The next drop works.
        let delivered = try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "big.bin")], to: bundle)
        }
        #expect(delivered.map(\.name) == ["big.bin"])
        #expect(status(delivered[0].path).st_size == 64 << 20)
    }

    @Test func descriptorCountIsTheSameBeforeAndAfterDrops() throws {
        let scratch = Scratch()
        let child = try Self.startChild(job: "descriptor-count", environment: ["COURIER_INBOX_ROOT": scratch.root],
                                        log: scratch.path + "/child.log")
        let ended = child.wait()
        let log = String(decoding: contents(scratch.path + "/child.log"), as: UTF8.self)
        #expect(ended == .exited(0), "child failed:\n\(log)")
        #expect(log.contains("descriptor count stayed at"), "child did not run the check:\n\(log)")
    }

    /// The child's side; enabled only in a child started by the tests above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[jobVariable] != nil, "runs only as a child process of ChildProcessTests"))
    func childProcessEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = try #require(environment["COURIER_INBOX_ROOT"])
        switch environment[Self.jobVariable] {
        case "blocked-copy":
            let source = try #require(environment["COURIER_INBOX_SOURCE"])
            let marker = try #require(environment["COURIER_INBOX_MARKER"])
            let staging: StagingStrategy = environment["COURIER_INBOX_STAGING"] == "named" ? .namedTemporaryFile : .unnamedTemporaryFile
            let fd = open(source, O_RDONLY | O_CLOEXEC)
            // Chunked copy even where the file system could clone the file in one call.
            _ = try Inbox(containersRoot: root, staging: staging, clonesWhereSupported: false).drop([DropFile(descriptor: fd, suggestedName: "big.bin")], to: bundle) { progress in
                if progress.fileBytesCopied > 0 && progress.fileBytesCopied < progress.fileBytes {
                    _ = FileManager.default.createFile(atPath: marker, contents: nil)
                    while true { sleep(60) }  // killed here, in the middle of the copy
                }
            }
            Issue.record("the copy finished without stopping in the middle")
        case "descriptor-count":
            try checkDescriptorCount(root: root)
        default:
            Issue.record("unknown child job")
        }
    }

    /// Drops that succeed and drops refused at every stage leave exactly as many descriptors open.
    func checkDescriptorCount(root: String) throws {
        func openCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
        let folder = root + "-sources"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/a.txt", contents: Data("text".utf8))
        let fd = open(folder + "/a.txt", O_RDONLY | O_CLOEXEC)
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(fd); close(directory) }
        let refuseAll = DropTypeCheck { candidate throws(InboxError) in
            throw InboxError.notPermitted(candidate, foundType: "public.data", bundleIdentifier: "x", accepted: [])
        }
        for staging in [StagingStrategy.unnamedTemporaryFile, .namedTemporaryFile] {
            let inbox = Inbox(containersRoot: root, staging: staging)
            _ = try inbox.drop([DropFile(descriptor: fd, suggestedName: "warm-up.txt")], to: bundle)
        }
        let before = openCount()
        for staging in [StagingStrategy.unnamedTemporaryFile, .namedTemporaryFile] {
            let inbox = Inbox(containersRoot: root, staging: staging)
            for _ in 0..<20 {
                _ = try inbox.drop([DropFile(descriptor: fd, suggestedName: "a.txt"), DropFile(descriptor: fd, suggestedName: "a.txt")], to: bundle)
                _ = try? inbox.drop([DropFile(descriptor: directory, suggestedName: "dir")], to: bundle)
                _ = try? inbox.drop([DropFile(descriptor: fd, suggestedName: "a.txt")], to: bundle, typePolicy: refuseAll)
                _ = try? inbox.drop([DropFile(descriptor: fd, suggestedName: "a.txt")], to: "../bad")
            }
            _ = inbox.sweepLeftovers()
        }
        // A symlinked Inbox, refused midway through the walk.
        try FileManager.default.createDirectory(atPath: root + "/com.acme.evil/Documents", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/com.acme.evil/Documents/Inbox", withDestinationPath: folder)
        _ = try? Inbox(containersRoot: root).drop([DropFile(descriptor: fd, suggestedName: "a.txt")], to: "com.acme.evil")
        let after = openCount()
        #expect(before == after, "descriptors before: \(before), after: \(after)")
        print("descriptor count stayed at \(before)")
    }
}
