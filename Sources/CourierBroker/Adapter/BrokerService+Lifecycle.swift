import DBus
import Foundation

/// The life-cycle members of `org.courier.Broker1` (docs/lifecycle.md): `ListProcesses`,
/// `Terminate`, and the `ApplicationStateChanged` signal.
extension BrokerService {
    static let stateChangedSignal = DBusSignal(
        "ApplicationStateChanged", arguments: "ssu", argumentNames: ["bundle_id", "state", "pid"]
    )

    /// Emits `ApplicationStateChanged(s bundle_id, s state, u pid)` (pid 0 when unknown), for the
    /// dispatcher's `stateChanged` events: tools and tests follow an app's life without polling.
    static func emitStateChanged(on connection: DBusConnection, bundleID: String, state: AppState) {
        try? connection.emitSignal(
            path: BrokerNames.objectPath, interface: BrokerNames.interface, member: "ApplicationStateChanged",
            [.string(bundleID), .string(state.name), .uint32(state.pid.map { UInt32(bitPattern: $0) } ?? 0)]
        )
    }

    /// `ListProcesses () → (aa{sv})`: one row per app the broker has dealt with since it started
    /// (`courier ps`): `bundle-id`, `state`, `pid`, `started-by`, `uptime-ms`, `idle-ms`, `handled`,
    /// `queued` (waiting plus in flight), `in-flight`, `rss-bytes` (from /proc), `failures`, for a
    /// checked-in app `delivery`: `link` (its direct link) or `bus`, and `not-responding` (true)
    /// while its process is hung.
    func listProcessesMethod() -> DBusMethod {
        DBusMethod("ListProcesses", results: "aa{sv}", resultNames: ["processes"]) { [self] _ in
            let rows: [DBusValue] = dispatcher.statuses().map { status in
                var row: [String: DBusValue] = [
                    "bundle-id": .string(status.bundleID), "state": .string(status.state.name),
                    "handled": .uint64(UInt64(status.handled)), "queued": .uint32(UInt32(status.queued + (status.inFlight ? 1 : 0))),
                    "in-flight": .boolean(status.inFlight), "failures": .uint32(UInt32(status.consecutiveFailures)),
                ]
                if !status.startedBy.isEmpty { row["started-by"] = .string(status.startedBy) }
                if status.notResponding { row["not-responding"] = .boolean(true) }
                if let uniqueName = status.state.uniqueName {
                    row["delivery"] = .string(links?.connection(for: uniqueName) != nil ? "link" : "bus")
                }
                if let uptime = status.uptime { row["uptime-ms"] = .uint64(uptime.milliseconds) }
                if let idle = status.idleFor { row["idle-ms"] = .uint64(idle.milliseconds) }
                if let pid = status.state.pid {
                    row["pid"] = .uint32(UInt32(bitPattern: pid))
                    if let rss = ProcessMemory.residentBytes(pid: pid) { row["rss-bytes"] = .uint64(rss) }
                }
                return .vardict(row)
            }
            return [.array(.dictionary(key: .string, value: .variant), rows)]
        }
    }

    /// `Terminate (s bundle_id) → ()`: terminate with notice, as the policies do (`courier quit`).
    /// Returns once the notice is under way; `ApplicationStateChanged` says when it is gone.
    func terminateMethod() -> DBusMethod {
        DBusMethod("Terminate", arguments: "s", argumentNames: ["bundle_id"]) { [self] (call: MethodCall) async throws -> [DBusValue] in
            let bundleID = call.arguments[0].stringValue ?? ""
            do {
                try dispatcher.terminate(bundleID: bundleID, reason: "quit by \(call.sender?.rawValue ?? "?")")
                return []
            } catch {
                throw Self.dbusError(error)
            }
        }
    }
}

extension Duration {
    var milliseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
    }
}
