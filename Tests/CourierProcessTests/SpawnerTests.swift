import CourierProcess
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Spawner.start` and `ChildProcess`: where the outputs go, what the child inherits, how it ends.
@Suite struct SpawnerTests {
    static let shell = "/bin/sh"

    /// A fresh scratch folder, removed by the caller.
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-spawner-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func sh(_ script: String, environment: [String: String]? = nil, standardOutput: SpawnOutput = .inherit,
                   standardError: SpawnOutput = .inherit, newProcessGroup: Bool = false) throws -> ChildProcess {
        try Spawner.start(path: shell, arguments: [shell, "-c", script], environment: environment,
                          standardOutput: standardOutput, standardError: standardError, newProcessGroup: newProcessGroup)
    }

    @Test func pipedOutputIsReadUntilTheMarkerAndBothOutputsShareThePipe() throws {
        let child = try Self.sh("echo out; echo err >&2; echo ready", standardOutput: .pipe, standardError: .pipe)
        let text = try #require(child.readOutput(until: "ready"))
        child.closeOutput()
        #expect(text.split(separator: "\n") == ["out", "err", "ready"])
        #expect(child.wait() == .exited(0))
    }

    @Test func readingStopsWithNilWhenTheChildClosesItsOutputFirst() throws {
        let child = try Self.sh("echo almost", standardOutput: .pipe)
        #expect(child.readOutput(until: "ready") == nil)
        child.closeOutput()
        child.wait()
    }

    @Test func filesAreTruncatedOrAppendedAndStandardErrorCanFollowStandardOutput() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("log").path
        try "old\n".write(toFile: log, atomically: false, encoding: .utf8)
        #expect(try Self.sh("echo one; echo two >&2", standardOutput: .file(log, append: true), standardError: .standardOutput).wait().succeeded)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "old\none\ntwo\n")
        #expect(try Self.sh("echo fresh", standardOutput: .file(log)).wait().succeeded)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "fresh\n")
    }

    @Test func theEnvironmentIsExactlyTheOneGivenOrElseTheLaunchersOwn() throws {
        let given = try Self.sh("echo \"[$COURIER_SPAWNER_TEST][$HOME]\"", environment: ["COURIER_SPAWNER_TEST": "x"], standardOutput: .pipe)
        #expect(given.readOutput(until: "\n") == "[x][]\n")
        given.closeOutput()
        given.wait()
        let inherited = try Self.sh("echo \"[$HOME]\"", standardOutput: .pipe)
        #expect(inherited.readOutput(until: "\n") == "[\(ProcessInfo.processInfo.environment["HOME"] ?? "")]\n")
        inherited.closeOutput()
        inherited.wait()
    }

    @Test func onlyStandardDescriptorsReachTheChild() throws {
        let open = Glibc.open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(open) }
        let child = try Self.sh("/bin/ls /proc/self/fd; echo end", standardOutput: .pipe)
        let text = try #require(child.readOutput(until: "end"))
        child.closeOutput()
        child.wait()
        if Spawner.closesInheritedDescriptors {
            // 0, 1, 2, and the descriptor ls opened to list the folder.
            let listed = Set(text.split(separator: "\n").compactMap { Int32($0) })
            #expect(!listed.contains(open), "inherited \(open): \(listed.sorted())")
            #expect(listed.isSuperset(of: [0, 1, 2]))
        }
    }

    @Test func stopEndsAChildWithSIGTERMEvenWhenTheLauncherBlocksIt() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let child = try Self.sh("echo ready; exec sleep 30", standardOutput: .pipe)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        #expect(child.readOutput(until: "ready") != nil)
        #expect(child.stop(grace: .seconds(5)) == .signaled(SIGTERM))
    }

    @Test func waitWithATimeoutLeavesARunningChildAlone() async throws {
        let child = try Self.sh("exec sleep 30")
        #expect(await child.wait(timeout: .milliseconds(50)) == nil)
        #expect(child.poll() == nil)
        child.kill()
        #expect(child.poll() == .exited(-1), "already reaped by kill()")
    }

    @Test func killingTheProcessGroupEndsWhatTheChildStarted() throws {
        let child = try Self.sh("sleep 30 & echo $!; wait", standardOutput: .pipe, newProcessGroup: true)
        let grandchild = try #require(child.readOutput(until: "\n").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        child.kill(processGroup: true)
        // The grandchild is not ours to reap: it is gone once kill(2) no longer finds it (or it is a zombie).
        var gone = false
        for _ in 0..<250 where !gone {
            let state = (try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8))?.split(separator: " ")[2]
            gone = state == nil || state == "Z"
            if !gone { usleep(10_000) }
        }
        #expect(gone)
    }

    @Test func aMissingProgramFailsWithItsErrno() {
        #expect(throws: SpawnError(errno: ENOENT)) {
            try Spawner.start(path: "/nonexistent/courier-program", arguments: ["courier-program"])
        }
    }

    @Test func terminationsSayHowTheChildEnded() {
        #expect(ChildProcess.Termination(waitStatus: 3 << 8) == .exited(3))
        #expect(ChildProcess.Termination(waitStatus: 9) == .signaled(9))
        #expect(ChildProcess.Termination.signaled(9).shellStatus == 137)
        #expect(ChildProcess.Termination.exited(0).succeeded)
        #expect("\(ChildProcess.Termination.exited(3))" == "exit status 3")
        #expect("\(ChildProcess.Termination.signaled(15))" == "killed by signal 15")
        #expect(ChildProcess.Termination.signaled(4).ending == "was killed by signal 4")
        #expect(ChildProcess.Termination.exited(1).ending == "exited with status 1")
    }
}
