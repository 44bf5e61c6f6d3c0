import CourierBroker
import CourierProcess
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ProcessHandle` and the receiver check made through it, on real processes.
@Suite("ProcessHandle")
struct ProcessHandleTests {
    let verifier = ReceiverVerifier(launcher: ProcessLauncher(), resolver: ManifestCatalog(folders: []))

    /// A handle reads the executable of its process; once the process has exited it reads
    /// nothing, and the check that the admitted process still runs its file fails.
    @Test func aHandleReadsItsProcessUntilItExits() throws {
        let child = try Spawner.start(path: "/bin/sleep", arguments: ["/bin/sleep", "60"])
        let handle = try #require(ProcessHandle(pid: child.pid))
        let sleep = try #require(FileIdentity(path: "/bin/sleep"))
        #expect(handle.executable == sleep)
        let admitted = ReceiverVerdict.sameExecutable(ProcessIdentity.of(pid: child.pid))
        #expect(verifier.stillHolds(admitted, bundleID: "org.example.test.sleep", handle: handle))

        _ = child.stop(grace: .zero)
        #expect(handle.executable == nil)
        #expect(!verifier.stillHolds(admitted, bundleID: "org.example.test.sleep", handle: handle))
    }

    /// A process admitted for its executable that then replaces it (`exec` keeps the pid and the
    /// bus connection) is no longer the app.
    @Test func aProcessThatExecsAnotherFileNoLongerHolds() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("go").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The shell waits for one line on the fifo, then becomes `sleep`.
        let child = try Spawner.start(path: "/bin/sh", arguments: ["/bin/sh", "-c", #"read line < "$0"; exec /bin/sleep 60"#, fifo])
        defer { _ = child.stop(grace: .zero) }
        let handle = try #require(ProcessHandle(pid: child.pid))
        let admitted = ReceiverVerdict.sameExecutable(ProcessIdentity.of(pid: child.pid))
        guard case .sameExecutable(let shell) = admitted, let shellFile = shell.executable else {
            Issue.record("cannot read the shell's executable")
            return
        }
        #expect(handle.executable == shellFile)
        #expect(verifier.stillHolds(admitted, bundleID: "org.example.test.shell", handle: handle))

        let writer = open(fifo, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        _ = "go\n".withCString { write(writer, $0, 3) }
        close(writer)
        let sleep = try #require(FileIdentity(path: "/bin/sleep"))
        // The exec happens in the child after it reads the line: wait for it (bounded).
        for _ in 0..<1000 where handle.executable != sleep { usleep(10_000) }
        #expect(handle.executable == sleep)
        #expect(!verifier.stillHolds(admitted, bundleID: "org.example.test.shell", handle: handle))
        #expect(!verifier.stillHolds(admitted, bundleID: "org.example.test.shell"))
    }
}
