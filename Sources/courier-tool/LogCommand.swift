import ArgumentParser
import CourierNames
import CourierProcess
import Foundation

/// `courier log BUNDLE_ID`: what an app the broker launched printed (its standard output and
/// error), like `journalctl --user -u UNIT`. When journald runs, the broker streams it to the
/// journal with the bundle id as identifier and this reads it back with `journalctl -t`; else the
/// broker appends it to `CourierLayout.log(for:)`. One header line per launch either way.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show what an app launched by Courier printed (standard output and error).",
        discussion: """
            When journald runs (its socket /run/systemd/journal/stdout exists), reads the journal: \
            `journalctl -t BUNDLE_ID _UID=your uid -o cat`. Else reads $XDG_STATE_HOME/courier/logs/BUNDLE_ID.log \
            (and BUNDLE_ID.log.1, the log before the last rotation, first). An app you start yourself \
            prints to your terminal instead.
            """ + " " + CourierExitCode.help([
                (.handled, ""), (.unknownApp, "no such app"), (.refused, "the bundle id is invalid"),
                (.cannotOpen, "there is no log (Courier never launched the app), or journald runs and journalctl cannot be run"),
            ])
    )

    @Argument(help: "The app's bundle id (CFBundleIdentifier).", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    @Option(name: [.customShort("n"), .customLong("lines")], help: "Only the last N lines.")
    var lines: Int?

    @Flag(name: [.short, .long], help: "Keep printing what the app prints until interrupted (like tail -f).")
    var follow = false

    func run() async throws {
        guard let app = try? BundleIdentifier(bundleID) else {
            report("courier log: '\(bundleID)' is not a bundle id (reverse-DNS, e.g. com.acme.todolist); `courier status` lists the registered apps")
            throw CourierExitCode.refused.exitCode
        }
        if JournalStream.isListening() {
            try await journal(app)
            return
        }
        let layout = CourierLayout.current()
        let file = layout.log(for: app)
        let previous = FileManager.default.contents(atPath: layout.previousLog(for: app)) ?? Data()
        guard let current = FileManager.default.contents(atPath: file) else {
            if await !RegisteredNames.isRegistered(bundleID) {
                report("courier log: no app \(bundleID) is registered; `courier status` lists the registered apps")
                throw CourierExitCode.unknownApp.exitCode
            }
            guard follow else {
                report("courier log: no log for \(bundleID) at \(file): Courier has not launched it (an app you start yourself prints to your terminal)")
                throw CourierExitCode.cannotOpen.exitCode
            }
            try await self.follow(file, from: 0)
            return
        }
        var text = previous + current
        if let lines, lines >= 0 {
            let all = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let trailing = text.last == UInt8(ascii: "\n") ? 1 : 0
            text = Data(all.suffix(lines + trailing).joined(separator: [UInt8(ascii: "\n")]))
        }
        FileHandle.standardOutput.write(text)
        if follow { try await self.follow(file, from: UInt64(current.count)) }
    }

    /// Prints what is appended to `file` from `offset` on; starts over when the file is rotated.
    private func follow(_ file: String, from offset: UInt64) async throws {
        var offset = offset
        while !Task.isCancelled {
            if let handle = FileHandle(forReadingAtPath: file) {
                let size = try handle.seekToEnd()
                if size < offset { offset = 0 }
                try handle.seek(toOffset: offset)
                if let data = try handle.readToEnd(), !data.isEmpty {
                    FileHandle.standardOutput.write(data)
                    offset += UInt64(data.count)
                }
                try handle.close()
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Prints the app's entries in the journal (`journalctl -t BUNDLE_ID`, this user's only, as
    /// the messages alone), then, with `--follow`, what comes after.
    private func journal(_ app: BundleIdentifier) async throws {
        let id = app.rawValue
        let output: Data
        do {
            let journal = try JournalReader()
            if follow {
                let process = try Process.run(URL(fileURLWithPath: journal.journalctl), arguments: journal.arguments(for: id, lines: lines) + ["-f"])
                process.waitUntilExit()
                return
            }
            output = try journal.read(id, lines: lines)
        } catch let error as JournalReader.Failure {
            if case .noJournalctl = error {
                report("courier log: journald runs (\(JournalStream.defaultSocketPath)), so \(id)'s output is in the journal, but \(error)")
            } else {
                report("courier log: \(error)")
            }
            throw CourierExitCode.cannotOpen.exitCode
        }
        if output.isEmpty {
            if await !RegisteredNames.isRegistered(id) {
                report("courier log: no app \(id) is registered; `courier status` lists the registered apps")
                throw CourierExitCode.unknownApp.exitCode
            }
            report("courier log: the journal has nothing from \(id): Courier has not launched it since journald runs (an app you start yourself prints to your terminal)")
            throw CourierExitCode.cannotOpen.exitCode
        }
        FileHandle.standardOutput.write(output)
    }

    private func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
