import DBus
import CourierProtocol
import Foundation

/// The life-cycle members of `org.courier.Broker1` (docs/lifecycle.md): `ListProcesses`,
/// `Terminate`, and the `ApplicationStateChanged` signal.
extension BrokerService {
    /// Emits `ApplicationStateChanged(s bundle_id, s state, u pid)` (pid 0 when unknown), for the
    /// dispatcher's `stateChanged` events: tools and tests follow an app's life without polling.
    static func emitStateChanged(on connection: DBusConnection, bundleID: String, state: AppState) {
        try? Broker1.applicationStateChanged.emit(
            on: connection, path: Broker1.objectPath,
            ApplicationStateChange(bundleID: bundleID, state: state.name, pid: state.pid.map { UInt32(bitPattern: $0) } ?? 0).body
        )
    }

    /// `ListProcesses () → (aa{sv})`: one row per app the broker has dealt with since it started
    /// (`courier ps`): `bundle-id`, `state`, `pid`, `started-by`, `uptime-ms`, `idle-ms`, `handled`,
    /// `queued` (waiting plus in flight), `in-flight`, `rss-bytes` (from /proc), `failures`, for a
    /// checked-in app `delivery`: `link` (its direct link) or `bus`, and `not-responding` (true)
    /// while its process is hung.
    func listProcessesMethod() -> DBusMethod {
        Broker1.listProcesses.serving { [self] _ in
            let rows: [DBusValue] = dispatcher.statuses().map { status in
                var row: [String: DBusValue] = [String: DBusValue](
                    CourierKey.bundleID(status.bundleID), CourierKey.state(status.state.name),
                    CourierKey.handled(UInt64(status.handled)), CourierKey.queued(UInt32(status.queued + (status.inFlight ? 1 : 0))),
                    CourierKey.inFlight(status.inFlight), CourierKey.failures(UInt32(status.consecutiveFailures))
                )
                if !status.startedBy.isEmpty { row[CourierKey.startedBy] = status.startedBy }
                if status.notResponding { row[CourierKey.notResponding] = true }
                if let uniqueName = status.state.uniqueName {
                    row[CourierKey.delivery] = links?.connection(for: uniqueName) != nil ? "link" : "bus"
                }
                if let uptime = status.uptime { row[CourierKey.uptimeMS] = uptime.milliseconds }
                if let idle = status.idleFor { row[CourierKey.idleMS] = idle.milliseconds }
                if let pid = status.state.pid {
                    row[CourierKey.pid] = UInt32(bitPattern: pid)
                    if let rss = ProcessMemory.residentBytes(pid: pid) { row[CourierKey.rssBytes] = rss }
                }
                return .vardict(row)
            }
            return [.array(.dictionary(key: .string, value: .variant), rows)]
        }
    }

    /// `Terminate (s bundle_id) → ()`: terminate with notice, as the policies do (`courier quit`).
    /// Returns once the notice is under way; `ApplicationStateChanged` says when it is gone.
    func terminateMethod() -> DBusMethod {
        Broker1.terminate.serving { [self] (call: MethodCall) async throws -> [DBusValue] in
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
