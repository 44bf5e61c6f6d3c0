import ArgumentParser
import CourierTools
import CourierNames
import DBus
import CourierProtocol
import Foundation

/// `courier ps`: the apps the broker knows and where each is in its life (docs/lifecycle.md) —
/// what `launchctl list` and `systemctl --user status` show their users.
struct PsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps",
        abstract: "List the apps the broker knows (or one): state, pid, who started them, uptime, requests handled and queued, memory, and whether their URLs travel a direct link or the bus.",
        discussion: "States: not-running, launching, active (handling or with requests waiting), idle, terminating; failed (a keep-alive app Courier gave up relaunching). Never starts a broker. " + CourierExitCode.help([(.handled, ""), (.unknownApp, "no such app"), (.brokerUnavailable, "no broker")])
    )

    @Argument(help: "Only this app (a registered app the broker has not run yet shows as not-running).", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String?

    @Flag(name: .long, help: "Print JSON (one object per app; with BUNDLE_ID, still an array).")
    var json = false

    /// One app: the broker's `ListProcesses` row (`CourierKey`: `bundle-id`, `state`, `pid`, `ends`…,
    /// docs/dbus-api.md), read through its keys. `--json` prints it in the CLI's snake_case
    /// (`JSONValue.fields`) without `in-flight`: `queued` already counts the request in flight.
    struct Row: Encodable {
        var fields: [String: DBusValue]

        subscript<Value>(key: OptionKey<Value>) -> Value? {
            get { fields[key] }
            set { fields[key] = newValue }
        }

        var bundleID: String { self[CourierKey.bundleID] ?? "?" }

        /// How its last instances ended, oldest first.
        var ends: [End] { (self[CourierKey.ends] ?? []).map(End.init) }

        /// The STATE column: the state, `not-responding` while hung, `failed` for a keep-alive app
        /// given up; `(disabled)` after it.
        var shownState: String {
            let base = self[CourierKey.notResponding] == true ? "not-responding" : self[CourierKey.failed] == true ? "failed" : self[CourierKey.state] ?? "?"
            return self[CourierKey.disabled] == true ? "\(base) (disabled)" : base
        }

        func encode(to encoder: any Encoder) throws {
            var printed = fields
            printed[CourierKey.inFlight] = nil
            try JSONValue.fields(printed).encode(to: encoder)
        }

        /// One end (`CourierKey.ends`): `pid`, `ended-at-ms`, `reason`, `log`….
        struct End {
            var fields: [String: DBusValue]

            /// The last lines it printed.
            var log: [String] { fields[CourierKey.log] ?? [] }

            /// One line: when, pid, how, after how long, who asked, what was left unanswered.
            var line: String {
                var parts: [String] = []
                if let endedAtMilliseconds = fields[CourierKey.endedAtMS] {
                    let date = Date(timeIntervalSince1970: Double(endedAtMilliseconds) / 1000)
                    parts.append(End.timeFormat.string(from: date))
                }
                if let pid = fields[CourierKey.pid] { parts.append("pid \(pid)") }
                var how = fields[CourierKey.reason] ?? "?"
                if let lifetimeMilliseconds = fields[CourierKey.lifetimeMS] { how += " after \(PsCommand.duration(lifetimeMilliseconds))" }
                parts.append(how)
                if let requestedBy = fields[CourierKey.requestedBy] {
                    parts.append(fields[CourierKey.forced] == true ? "(\(requestedBy): SIGKILL, no notice)" : "(\(requestedBy))")
                }
                if let unanswered = fields[CourierKey.unanswered] { parts.append("while handling \(unanswered)") }
                if let queued = fields[CourierKey.queued], queued > 0 { parts.append("\(queued) waiting") }
                return parts.joined(separator: " ")
            }

            static let timeFormat: DateFormatter = {
                let formatter = DateFormatter()
                formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
                return formatter
            }()
        }
    }

    func run() async throws {
        try await BrokerConnection.withRunningBroker("ps", notRunning: {
            FileHandle.standardError.write(Data("courier ps: no broker is running on this bus (courier open starts one)\n".utf8))
        }) { client in
            var rows = try await client.processes().map(Row.init(fields:))
            if let bundleID {
                rows = rows.filter { $0.bundleID == bundleID }
                if rows.isEmpty {
                    guard let app = try await client.listApplications().first(where: { $0[CourierKey.bundleID] == bundleID }) else {
                        throw CourierError(.noHandler, "no app \(bundleID) is registered; `courier status` lists the registered apps")
                    }
                    var row = Row(fields: [String: DBusValue](
                        CourierKey.bundleID(bundleID), CourierKey.state("not-running"),
                        CourierKey.handled(0), CourierKey.queued(0), CourierKey.failures(0)
                    ))
                    row[CourierKey.disabled] = app[CourierKey.disabled]
                    rows = [row]
                }
            }
            if json {
                JSONOutput.print(rows)
                return
            }
            var lines = [["BUNDLE-ID", "STATE", "PID", "STARTED-BY", "UPTIME", "HANDLED", "QUEUED", "RSS", "DELIVERY"]]
            for row in rows {
                lines.append([
                    row.bundleID, row.shownState, row[CourierKey.pid].map(String.init) ?? "-", row[CourierKey.startedBy] ?? "-",
                    row[CourierKey.uptimeMS].map(Self.duration) ?? "-", String(row[CourierKey.handled] ?? 0), String(row[CourierKey.queued] ?? 0),
                    row[CourierKey.rssBytes].map(Self.size) ?? "-", row[CourierKey.delivery] ?? "-",
                ])
            }
            let widths = (0..<lines[0].count).map { column in lines.map { $0[column].count }.max() ?? 0 }
            for line in lines {
                print(zip(line, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    static func duration(_ milliseconds: UInt64) -> String {
        let seconds = milliseconds / 1000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(seconds % 60)s" }
        return "\(seconds / 3600)h\(seconds % 3600 / 60)m"
    }

    static func size(_ bytes: UInt64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20)M" : "\(bytes >> 10)K"
    }
}
