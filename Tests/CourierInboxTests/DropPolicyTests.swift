import Foundation
import Synchronization
import Testing
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// Limits, free space and the type check all refuse a drop before anything is written.
@Suite struct DropPolicyTests {
    let bundle = "com.acme.todolist"

    func drop(_ scratch: Scratch, sizes: [Int], limits: DropLimits = .standard,
              policy: some DropTypePolicy = AcceptAnyType()) throws(InboxError) -> [DeliveredFile] {
        let fds = sizes.enumerated().map { index, size in
            open(scratch.write("f\(index).txt", [UInt8](repeating: 0x41, count: size)), O_RDONLY | O_CLOEXEC)
        }
        defer { fds.forEach { close($0) } }
        return try scratch.inbox(limits: limits).drop(fds.enumerated().map { DropFile(descriptor: $1, suggestedName: "f\($0).txt") },
                                                      to: bundle, typePolicy: policy)
    }

    @Test func fileOverThePerFileLimitIsRefused() {
        let scratch = Scratch()
        var limits = DropLimits.standard
        limits.maximumFileBytes = 1000
        let error = #expect(throws: InboxError.self) { try drop(scratch, sizes: [10, 1001], limits: limits) }
        #expect(error?.code == .fileTooLarge)
        #expect(error?.fileIndex == 1)
        #expect(scratch.list(scratch.root) == nil)
    }

    @Test func dropOverThePerDropLimitIsRefused() {
        let scratch = Scratch()
        var limits = DropLimits.standard
        limits.maximumDropBytes = 1000
        let error = #expect(throws: InboxError.self) { try drop(scratch, sizes: [600, 600], limits: limits) }
        #expect(error?.code == .dropTooLarge)
        #expect(scratch.list(scratch.root) == nil)
    }

    @Test func tooManyFilesAreRefused() {
        let scratch = Scratch()
        var limits = DropLimits.standard
        limits.maximumFileCount = 2
        let error = #expect(throws: InboxError.self) { try drop(scratch, sizes: [1, 1, 1], limits: limits) }
        #expect(error?.code == .tooManyFiles)
    }

    @Test func dropThatWouldFillTheDiskIsRefused() throws {
        let scratch = Scratch()
        var limits = DropLimits.standard
        var fs = statvfs()
        #expect(statvfs(scratch.path, &fs) == 0)
        // Keep free more than is free now (other processes free space meanwhile): any file is refused.
        limits.reservedFreeBytes = 2 * Int64(fs.f_bavail) * Int64(fs.f_frsize) + (1 << 30)
        let error = #expect(throws: InboxError.self) { try drop(scratch, sizes: [8192], limits: limits) }
        #expect(error?.code == .insufficientSpace)
        #expect(error?.message.contains("Free some space") == true)
        #expect(scratch.list(scratch.inbox().inboxPath(for: bundle)) == [])
    }

    @Test func typePolicyRefusalNamesTheTypeAndWritesNothing() throws {
        let scratch = Scratch()
        let bundle = self.bundle
        let policy = DropTypeCheck { candidate throws(InboxError) in
            if candidate.fileName.pathExtension == "sh" || candidate.leadingBytes.starts(with: Array("#!".utf8)) {
                throw InboxError.notPermitted(candidate, foundType: "public.shell-script", bundleIdentifier: bundle,
                                              accepted: ["public.plain-text"])
            }
        }
        _ = try drop(scratch, sizes: [3, 3], policy: policy)  // plain files pass
        let source = scratch.write("run", Array("#!/bin/sh\nrm -rf ~\n".utf8))
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let refusal = #expect(throws: InboxError.self) {
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: "innocent.txt")], to: bundle, typePolicy: policy)
        }
        #expect(refusal?.code == .notPermitted)
        #expect(refusal?.courierErrorName == "org.courier.Error.NotPermitted")
        #expect(refusal?.message.contains("public.shell-script") == true)
        #expect(scratch.list(scratch.inbox().inboxPath(for: bundle)) == ["f0.txt", "f1.txt"])
    }

    @Test func policySeesTheSuggestedNameAndTheFirstBytes() throws {
        let scratch = Scratch()
        let seen = Mutex<[DropCandidate]>([])
        _ = try drop(scratch, sizes: [5000], policy: DropTypeCheck { candidate in seen.withLock { $0.append(candidate) } })
        let candidate = try #require(seen.withLock { $0.first })
        #expect(candidate.suggestedName == "f0.txt")
        #expect(candidate.fileName.name == "f0.txt")
        #expect(candidate.size == 5000)
        #expect(candidate.leadingBytes == [UInt8](repeating: 0x41, count: DropCandidate.sniffLength))
    }
}
