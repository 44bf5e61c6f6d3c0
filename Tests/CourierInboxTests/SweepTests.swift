import Foundation
import Testing
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// Leftovers of drops killed mid-copy are swept at start-up; nothing else is touched.
@Suite struct SweepTests {
    func makeInbox(_ scratch: Scratch, _ bundle: String, files: [String]) throws -> String {
        let inbox = scratch.inbox().inboxPath(for: bundle)
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        for file in files { scratch.write("containers/\(bundle)/Documents/Inbox/\(file)", Array("partial".utf8)) }
        return inbox
    }

    @Test func sweepRemovesLeftoversInEveryInboxAndNothingElse() throws {
        let scratch = Scratch()
        let first = try makeInbox(scratch, "com.acme.one", files: [".courier-partial-12-ab", "Report.pdf", ".other"])
        let second = try makeInbox(scratch, "com.acme.two", files: [".courier-partial-99-cd"])
        try FileManager.default.createDirectory(atPath: scratch.root + "/com.acme.empty", withIntermediateDirectories: true)
        let report = scratch.inbox().sweepLeftovers()
        #expect(Set(report.removed) == [first + "/.courier-partial-12-ab", second + "/.courier-partial-99-cd"])
        #expect(report.problems.isEmpty)
        #expect(scratch.list(first) == [".other", "Report.pdf"])
        #expect(scratch.list(second) == [])
        #expect(scratch.openDescriptorsInside().isEmpty)
    }

    @Test func sweepLeavesAFileThatALiveDropHolds() throws {
        let scratch = Scratch()
        let inbox = try makeInbox(scratch, "com.acme.one", files: [".courier-partial-1-live"])
        try scratch.withDescriptor(inbox + "/.courier-partial-1-live") { fd in
            #expect(flock(fd, LOCK_EX) == 0)
            let report = scratch.inbox().sweepLeftovers()
            #expect(report.inUse == [inbox + "/.courier-partial-1-live"])
            #expect(report.removed.isEmpty)
        }
        #expect(scratch.inbox().sweepLeftovers().removed == [inbox + "/.courier-partial-1-live"])
    }

    @Test func sweepDoesNotFollowASymlinkedInbox() throws {
        let scratch = Scratch()
        let elsewhere = scratch.path + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        scratch.write("elsewhere/.courier-partial-1-x", Array("not yours".utf8))
        try FileManager.default.createDirectory(atPath: scratch.root + "/com.acme.evil/Documents", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.root + "/com.acme.evil/Documents/Inbox", withDestinationPath: elsewhere)
        let report = scratch.inbox().sweepLeftovers()
        #expect(report.removed.isEmpty)
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.contains("is a symbolic link") == true)
        #expect(scratch.list(elsewhere) == [".courier-partial-1-x"])
    }

    @Test func sweepOfAMissingRootDoesNothing() {
        let scratch = Scratch()
        #expect(scratch.inbox().sweepLeftovers() == SweepReport())
        #expect(scratch.list(scratch.root) == nil)
    }
}
