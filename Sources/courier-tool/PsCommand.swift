import ArgumentParser
import Courier
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
        abstract: "List the apps the broker knows: state, pid, who started them, uptime, requests handled and queued, memory, and whether their URLs travel a direct link or the bus.",
        discussion: "States: not-running, launching, active (handling or with requests waiting), idle, terminating. Never starts a broker."
    )

    @Flag(name: .long, help: "Print JSON (one object per app).")
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

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id", state, pid, startedBy = "started_by", uptimeMilliseconds = "uptime_ms"
            case idleMilliseconds = "idle_ms", handled, queued, residentBytes = "rss_bytes", consecutiveFailures = "failures", delivery
            case notResponding = "not_responding"
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
        }
    }

    func run() async throws {
        try await BrokerConnection.withRunningBroker("ps", notRunning: {
            FileHandle.standardError.write(Data("courier ps: no broker is running on this bus (courier open starts one)\n".utf8))
        }) { client in
            let rows = try await client.processes().map(Row.init)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                FileHandle.standardOutput.write(try encoder.encode(rows) + Data("\n".utf8))
                return
            }
            var lines = [["BUNDLE-ID", "STATE", "PID", "STARTED-BY", "UPTIME", "HANDLED", "QUEUED", "RSS", "DELIVERY"]]
            for row in rows {
                lines.append([
                    row.bundleID, row.notResponding == true ? "not-responding" : row.state, row.pid.map(String.init) ?? "-", row.startedBy ?? "-",
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
