import Foundation
import Testing
import CourierDesktop

/// End to end without the broker: the entry's `Exec` points at a recorder instead of courier, and
/// the real `gio open` and `xdg-open` launch it for hostile URLs; the recorded argv must be the
/// fixed arguments, `--`, then the URL byte for byte.
@Suite(.serialized) struct DesktopLaunchTests {
    static let fixed = ["open", "--desktop-entry", "--"]

    func registerRecorder(in home: TemporaryDesktopHome) throws -> (output: String, recorder: String) {
        let output = home.root + "/argv"
        let recorder = try home.makeRecorder(output: output)
        let exec = try DesktopExec(command: [recorder, "open", "--desktop-entry"])
        let desktop = DesktopIntegration(layout: home.directories, exec: exec, environment: home.environment())
        try desktop.register(DesktopApp(bundleIdentifier: "com.acme.todolist", name: "Todo List", schemes: ["todolist"]))
        return (output, recorder)
    }

    @Test(arguments: hostileURLs)
    func gioOpenDeliversTheURLByteExact(_ url: String) async throws {
        let home = try TemporaryDesktopHome()
        let (output, _) = try registerRecorder(in: home)
        let result = try await run("/usr/bin/gio", ["open", "--", url], environment: home.environment())
        #expect(result.status == 0)
        #expect(await home.recordedArguments(at: output) == Self.fixed + [url])
    }

    @Test(arguments: hostileURLs)
    func xdgOpenGenericPathDeliversTheURLByteExact(_ url: String) async throws {
        let home = try TemporaryDesktopHome()
        let (output, _) = try registerRecorder(in: home)
        let result = try await run("/usr/bin/xdg-open", [url], environment: home.environment(display: true))
        #expect(result.status == 0)
        #expect(await home.recordedArguments(at: output) == Self.fixed + [url])
    }

    /// GLib implements the Exec quoting rules, so a courier installed under a path with blanks and
    /// shell characters still runs, and fixed arguments with `\\` and `%` arrive intact
    /// (xdg-utils 1.1.3 splits Exec on blanks: see docs/desktop.md).
    @Test func gioRunsACommandWhosePathAndArgumentsNeedQuoting() async throws {
        let home = try TemporaryDesktopHome()
        let output = home.root + "/argv"
        let recorder = try home.makeRecorder(named: "../My $Apps `x` \"q\"/recorder", output: output)
        let exec = try DesktopExec(command: [recorder, "a\\b", "100%", "it's"])
        #expect(!exec.isSafeForXDGOpen)
        let desktop = DesktopIntegration(layout: home.directories, exec: exec, environment: home.environment())
        try desktop.register(DesktopApp(bundleIdentifier: "com.acme.todolist", name: "Todo List", schemes: ["todolist"]))
        let validation = try await run("/usr/bin/desktop-file-validate", [desktop.entryPath(for: "com.acme.todolist")], environment: home.environment())
        #expect(validation.status == 0 && validation.output.isEmpty, "\(validation.output)")
        let url = hostileURLs[3]
        let result = try await run("/usr/bin/gio", ["open", url], environment: home.environment())
        #expect(result.status == 0)
        #expect(await home.recordedArguments(at: output) == ["a\\b", "100%", "it's", "--", url])
    }
}

/// Out of Courier: the hand-off to the desktop's handler for schemes no Courier app owns.
@Suite(.serialized) struct DesktopHandoffTests {
    /// A desktop application (not Courier's) that is the default for `mailto`.
    func installMailApp(in home: TemporaryDesktopHome) throws -> String {
        let output = home.root + "/mail-argv"
        let recorder = try home.makeRecorder(named: "mail", output: output)
        try home.write("""
            [Desktop Entry]
            Type=Application
            Name=Mail
            Exec=\(recorder) --compose %u
            MimeType=x-scheme-handler/mailto;

            """, to: home.directories.applications + "/mail.desktop")
        try home.write("[Default Applications]\nx-scheme-handler/mailto=mail.desktop\n", to: home.directories.mimeAppsList)
        return output
    }

    @Test(arguments: [DesktopHandoff.Opener.gio, .xdgOpen])
    func handsTheURLToTheDesktopDefaultHandler(_ opener: DesktopHandoff.Opener) async throws {
        let home = try TemporaryDesktopHome()
        let output = try installMailApp(in: home)
        let url = "mailto:someone@example.com?subject=$(id)%20`x`&body=\"hi\";-x"
        let handoff = DesktopHandoff(openers: [opener], environment: home.environment(display: true))
        let result = try await offPool { try handoff.open(url) }
        #expect(result.status == .exited(0))
        #expect(result.opener.hasSuffix("/" + opener.program))
        let recorded = await home.recordedArguments(at: output)
        #expect(recorded == ["--compose", url], "files in the home: \(home.listing())")
    }

    @Test func anUnhandledSchemeFailsWithTheLastOpenersStatus() async throws {
        let home = try TemporaryDesktopHome()
        let handoff = DesktopHandoff(environment: home.environment())
        let result = try await offPool { try handoff.open("nosuchscheme://x") }
        #expect(result.opener == "/usr/bin/xdg-open")
        #expect(!result.status.succeeded)
    }

    /// gio knows only GIO's handlers; when it finds none, xdg-open still has `$BROWSER` (and a
    /// desktop's own tool). gio runs first, and xdg-open after it fails.
    @Test func whenGioFindsNoHandlerXdgOpenTriesBrowser() async throws {
        let home = try TemporaryDesktopHome()
        let output = home.root + "/browser-arguments"
        let browser = try home.makeRecorder(named: "browser", output: output)
        let environment = home.environment().merging(["BROWSER": browser]) { _, new in new }
        let result = try await offPool { try DesktopHandoff(environment: environment).open("https://example.org/?a=1") }
        #expect(result.opener == "/usr/bin/xdg-open" && result.status.succeeded, "\(result)")
        #expect(await home.recordedArguments(at: output) == ["https://example.org/?a=1"])
        let gioOnly = try await offPool { try DesktopHandoff(openers: [.gio], environment: environment).open("https://example.org/") }
        #expect(gioOnly.opener == "/usr/bin/gio" && !gioOnly.status.succeeded)
    }

    @Test func missingOpenersAreReported() async throws {
        let home = try TemporaryDesktopHome()
        let handoff = DesktopHandoff(environment: home.environment(path: home.root + "/empty"))
        #expect(throws: DesktopIntegrationError.noDesktopOpener(searched: ["gio", "xdg-open"])) {
            try handoff.open("https://example.com")
        }
    }

    @Test(arguments: ["-x", "--help", "no-scheme", ":x", "1http://x", "a\u{0}:b"])
    func onlyAbsoluteURLsAreHandedOff(_ url: String) async throws {
        #expect(throws: DesktopIntegrationError.notAnAbsoluteURL(url)) {
            try DesktopHandoff().open(url)
        }
    }
}

@Suite struct ExternalProgramTests {
    @Test func childrenGetOnlyTheStandardDescriptorsAndAnEmptySignalMask() async throws {
        let home = try TemporaryDesktopHome()
        let opened = open(home.root + "/leak", O_CREAT | O_WRONLY, 0o600)  // deliberately without O_CLOEXEC
        // F_DUPFD takes the lowest free descriptor >= 77; dup2 would silently close one that
        // another test running in this process owns.
        let leaked = fcntl(opened, F_DUPFD, 77)
        defer {
            close(opened)
            close(leaked)
        }
        #expect(leaked >= 77)
        let sh = try #require(ExternalProgram.find("sh", environment: home.environment()))
        // `exec`, so the shell neither forks nor blocks signals around a fork while we look.
        let status = try sh.run(["-c", "exec ls /proc/self/fd > \"$0\"", home.root + "/fds"], environment: home.environment())
        #expect(status == .exited(0))
        let listing = String(decoding: home.read(home.root + "/fds") ?? Data(), as: UTF8.self)
        let descriptors = listing.split(separator: "\n")
        #expect(descriptors.contains("2") && !descriptors.contains(Substring(String(leaked))))
        _ = try sh.run(["-c", "exec grep SigBlk /proc/self/status > \"$0\"", home.root + "/mask"], environment: home.environment())
        let mask = String(decoding: home.read(home.root + "/mask") ?? Data(), as: UTF8.self)
        #expect(mask == "SigBlk:\t0000000000000000\n")
    }

    @Test func exitStatusAndSignalsAreReported() async throws {
        let sh = try #require(ExternalProgram.find("sh"))
        #expect(try sh.run(["-c", "exit 7"]) == .exited(7))
        #expect(try sh.run(["-c", "kill -TERM $$"]) == .signaled(SIGTERM))
        #expect(ExitStatus.signaled(SIGTERM).shellStatus == 143)
    }
}
