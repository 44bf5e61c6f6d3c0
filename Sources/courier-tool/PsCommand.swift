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
        discussion: "States: not-running, launching, active (handling or with requests waiting), idle, terminating; failed (a keep-alive app Courier gave up relaunching). Never starts a broker. Exit status: 0; 3 no such app; 8 no broker."
    )

    @Argument(help: "Only this app (a registered app the broker has not run yet shows as not-running).", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String?

    @Flag(name: .long, help: "Print JSON (one object per app; with BUNDLE_ID, still an array).")
    var json = false

    /// One app, as printed.
    struct Row: Codable {
        var bundleID: String
        var state: String
        var pid: UInt32?
        var startedBy: String?
        var uptimeMilliseconds: UInt64?
        var idleMilliseconds: UInt64?
        var handled: UInt64
        var queued: UInt32
        var residentBytes: UInt64?
        var consecutiveFailures: UInt32
        /// `link` (the app's direct link) or `bus`: where its URLs travel, and so whether
        /// dbus-monitor sees them.
        var delivery: String?
        /// The app let the broker's delivery deadline pass without answering (hung).
        var notResponding: Bool?
        var keepAlive: Bool?
        var runAtLoad: Bool?
        var disabled: Bool?
        /// A keep-alive app the broker gave up relaunching.
        var failed: Bool?
        /// How its last instances ended, oldest first.
        var ends: [End]?

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id", state, pid, startedBy = "started_by", uptimeMilliseconds = "uptime_ms"
            case idleMilliseconds = "idle_ms", handled, queued, residentBytes = "rss_bytes", consecutiveFailures = "failures", delivery
            case notResponding = "not_responding", keepAlive = "keep_alive", runAtLoad = "run_at_load", disabled, failed, ends
        }

        /// One end (`CourierKey.ends`).
        struct End: Codable {
            var pid: UInt32?
            var endedAtMilliseconds: UInt64?
            var lifetimeMilliseconds: UInt64?
            var exitCode: Int32?
            var signal: Int32?
            var reason: String
            var requestedBy: String?
            var forced: Bool?
            var unanswered: String?
            var queued: UInt32?
            /// The last lines it printed.
            var log: [String]?

            enum CodingKeys: String, CodingKey {
                case pid, endedAtMilliseconds = "ended_at_ms", lifetimeMilliseconds = "lifetime_ms", exitCode = "exit_code", signal, reason
                case requestedBy = "requested_by", forced, unanswered, queued, log
            }

            init(_ row: [String: DBusValue]) {
                pid = row[CourierKey.pid]
                endedAtMilliseconds = row[CourierKey.endedAtMS]
                lifetimeMilliseconds = row[CourierKey.lifetimeMS]
                exitCode = row[CourierKey.exitCode]
                signal = row[CourierKey.signal]
                reason = row[CourierKey.reason] ?? "?"
                requestedBy = row[CourierKey.requestedBy]
                forced = row[CourierKey.forced]
                unanswered = row[CourierKey.unanswered]
                queued = row[CourierKey.queued]
                log = row[CourierKey.log]
            }

            /// One line: when, pid, how, after how long, who asked, what was left unanswered.
            var line: String {
                var parts: [String] = []
                if let endedAtMilliseconds {
                    let date = Date(timeIntervalSince1970: Double(endedAtMilliseconds) / 1000)
                    parts.append(End.timeFormat.string(from: date))
                }
                if let pid { parts.append("pid \(pid)") }
                var how = reason
                if let lifetimeMilliseconds { how += " after \(PsCommand.duration(lifetimeMilliseconds))" }
                parts.append(how)
                if let requestedBy { parts.append(forced == true ? "(\(requestedBy): SIGKILL, no notice)" : "(\(requestedBy))") }
                if let unanswered { parts.append("while handling \(unanswered)") }
                if let queued, queued > 0 { parts.append("\(queued) waiting") }
                return parts.joined(separator: " ")
            }

            static let timeFormat: DateFormatter = {
                let formatter = DateFormatter()
                formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
                return formatter
            }()
        }

        init(_ row: [String: DBusValue]) {
            bundleID = row[CourierKey.bundleID] ?? "?"
            state = row[CourierKey.state] ?? "?"
            pid = row[CourierKey.pid]
            startedBy = row[CourierKey.startedBy]
            uptimeMilliseconds = row[CourierKey.uptimeMS]
            idleMilliseconds = row[CourierKey.idleMS]
            handled = row[CourierKey.handled] ?? 0
            queued = row[CourierKey.queued] ?? 0
            residentBytes = row[CourierKey.rssBytes]
            consecutiveFailures = row[CourierKey.failures] ?? 0
            delivery = row[CourierKey.delivery]
            notResponding = row[CourierKey.notResponding]
            keepAlive = row[CourierKey.keepAlive]
            runAtLoad = row[CourierKey.runAtLoad]
            disabled = row[CourierKey.disabled]
            failed = row[CourierKey.failed]
            ends = row[CourierKey.ends].map { $0.map(End.init) }
        }

        /// The STATE column: the state, `not-responding` while hung, `failed` for a keep-alive app
        /// given up; `(disabled)` after it.
        var shownState: String {
            let base = notResponding == true ? "not-responding" : failed == true ? "failed" : state
            return disabled == true ? "\(base) (disabled)" : base
        }
    }

    func run() async throws {
        try await BrokerConnection.withRunningBroker("ps", notRunning: {
            FileHandle.standardError.write(Data("courier ps: no broker is running on this bus (courier open starts one)\n".utf8))
        }) { client in
            var rows = try await client.processes().map(Row.init)
            if let bundleID {
                rows = rows.filter { $0.bundleID == bundleID }
                if rows.isEmpty {
                    guard let app = try await client.listApplications().first(where: { $0[CourierKey.bundleID] == bundleID }) else {
                        throw CourierError(.noHandler, "no app \(bundleID) is registered; `courier status` lists the registered apps")
                    }
                    var row = Row([CourierKey.bundleID.name: .string(bundleID), CourierKey.state.name: .string("not-running")])
                    row.disabled = app[CourierKey.disabled]
                    rows = [row]
                }
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                FileHandle.standardOutput.write(try encoder.encode(rows) + Data("\n".utf8))
                return
            }
            var lines = [["BUNDLE-ID", "STATE", "PID", "STARTED-BY", "UPTIME", "HANDLED", "QUEUED", "RSS", "DELIVERY"]]
            for row in rows {
                lines.append([
                    row.bundleID, row.shownState, row.pid.map(String.init) ?? "-", row.startedBy ?? "-",
                    row.uptimeMilliseconds.map(Self.duration) ?? "-", String(row.handled), String(row.queued),
                    row.residentBytes.map(Self.size) ?? "-", row.delivery ?? "-",
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
