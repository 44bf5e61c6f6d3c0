import ArgumentParser
import CourierTools
import CourierNames
import CourierProcess
import DBus
import CourierProtocol
import Foundation

/// `courier status [BUNDLE_ID]`: is a broker running, how was it started, what do its apps do; for
/// one app, what `systemctl --user status UNIT` shows: its state, how its last instances ended, and
/// the last lines of its log.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running broker and the state of each registered app, or one app: its state, how its last instances ended, and the end of its log (never starts a broker).",
        discussion: CourierExitCode.help([(.handled, ""), (.unknownApp, "no such app"), (.brokerUnavailable, "no broker")])
    )

    @Argument(help: "One app: its manifest, state, last ends (exit status or signal, when, after how long, what it was handling) and the last lines of its log.",
              completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String?

    @Option(name: [.customShort("n"), .customLong("lines")], help: "With BUNDLE_ID: how many lines of its log to show.")
    var lines = 10

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() async throws {
        if let bundleID { return try await status(of: bundleID) }
        try await BrokerConnection.withRunningBroker("status", notRunning: {
            if json { JSONOutput.print(StatusOutcome(running: false)) } else { print("no broker is running on this bus (courier open starts one)") }
        }) { client in
            let status = try await client.status()
            let apps = try await client.listApplications()
            if json {
                JSONOutput.print(StatusOutcome(running: true, broker: JSONValue.fields(status), applications: apps.map(JSONValue.fields)))
                return
            }
            print("broker: pid \(status[CourierKey.pid].map(String.init) ?? "?") as \(status[CourierKey.uniqueName] ?? "?"), started by \(status[CourierKey.startedBy] ?? "?")")
            print("manifests: \((status[CourierKey.manifestPaths] ?? []).joined(separator: ":"))")
            for app in apps {
                let id = app[CourierKey.bundleID] ?? "?"
                let state = app[CourierKey.state] ?? "?"
                let schemes = (app[CourierKey.schemes] ?? []).joined(separator: ",")
                let launchable = app[CourierKey.launchable] == true ? "" : " (not launchable)"
                let disabled = app[CourierKey.disabled] == true ? " (disabled)" : ""
                print("\(id)\t\(state)\t\(schemes)\(launchable)\(disabled)\(BrokerToolClient.squat(app))")
            }
        }
    }

    /// One app, `systemctl status`-like.
    private func status(of bundleID: String) async throws {
        try await BrokerConnection.withRunningBroker("status", notRunning: {
            if json { JSONOutput.print(StatusOutcome(running: false)) } else { print("no broker is running on this bus (courier open starts one)") }
        }) { client in
            guard let app = try await client.listApplications().first(where: { $0[CourierKey.bundleID] == bundleID }) else {
                throw CourierError(.noHandler, "no app \(bundleID) is registered; `courier status` lists the registered apps")
            }
            let process = try await client.processes().first { $0[CourierKey.bundleID] == bundleID }.map(PsCommand.Row.init(fields:))
            let log = Self.logTail(bundleID, lines: lines)
            if json {
                JSONOutput.print(AppStatusOutcome(application: JSONValue.fields(app), process: process, log: log))
                return
            }
            let name = app[CourierKey.name].map { " - \($0)" } ?? ""
            print("\(bundleID)\(name)")
            var traits: [String] = []
            if process?[CourierKey.keepAlive] == true { traits.append("keep-alive") }
            if process?[CourierKey.runAtLoad] == true { traits.append("run-at-load") }
            if app[CourierKey.disabled] == true { traits.append("disabled: nothing is routed to it (courier enable)") }
            print("  manifest: \(app[CourierKey.path] ?? "-")\(traits.isEmpty ? "" : " (\(traits.joined(separator: ", ")))")")
            if let process {
                var active = process.shownState
                if let pid = process[CourierKey.pid] { active += " (pid \(pid))" }
                if let uptime = process[CourierKey.uptimeMS] { active += " for \(PsCommand.duration(uptime))" }
                if let startedBy = process[CourierKey.startedBy] { active += ", started by \(startedBy)" }
                active += "; handled \(process[CourierKey.handled] ?? 0), queued \(process[CourierKey.queued] ?? 0)"
                let failures = process[CourierKey.failures] ?? 0
                if failures > 0 { active += ", \(failures) failures in a row" }
                print("  state: \(active)")
                if process[CourierKey.failed] == true { print("  keep-alive gave up: it failed \(failures) times in a row; `courier launch \(bundleID)` tries again") }
                let ends = process.ends
                print(ends.isEmpty ? "  ends: none since the broker started" : "  ends (oldest first):")
                for end in ends {
                    print("    \(end.line)")
                    for line in end.log { print("      | \(line)") }
                }
            } else {
                print("  state: not-running (the broker has not run it since it started)")
            }
            if !log.isEmpty {
                print("  log (last \(log.count) lines; courier log \(bundleID)):")
                for line in log { print("    \(line)") }
            }
        }
    }

    /// The last `count` lines of the app's log files (`courier log`'s), oldest first; none when
    /// Courier never launched it.
    static func logTail(_ bundleID: String, lines count: Int) -> [String] {
        guard count > 0, let app = try? BundleIdentifier(bundleID) else { return [] }
        if JournalStream.isListening() { return journalTail(bundleID, lines: count) }
        let layout = CourierLayout.current()
        let text = [layout.previousLog(for: app), layout.log(for: app)].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
        let all = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        return all.suffix(count).map(String.init)
    }

    /// The last `count` lines the app wrote to the journal (`JournalReader`), or one line saying
    /// why they cannot be read.
    static func journalTail(_ bundleID: String, lines count: Int) -> [String] {
        do {
            let output = try JournalReader().read(bundleID, lines: count)
            return String(decoding: output, as: UTF8.self).split(separator: "\n").suffix(count).map(String.init)
        } catch {
            return ["(the output is in the journal, but \(error))"]
        }
    }
}
