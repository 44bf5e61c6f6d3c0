import CourierNames
import DBus
import CourierProtocol
import Foundation

/// The life-cycle members of `org.courier.Broker1` (docs/lifecycle.md): `ListProcesses`,
/// `Terminate`, `Kill`, `Launch`, `Restart`, and the `ApplicationStateChanged` signal.
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
    /// while its process is hung; `keep-alive`, `run-at-load`, `disabled`, `failed` (a keep-alive
    /// app given up) when true, and `ends`, how its last instances ended (`AppEnd`).
    func listProcessesMethod() -> DBusMethod {
        Broker1.listProcesses.serving { [self] _ in
            let now = Date()
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
                let descriptor = catalog.descriptor(bundleID: status.bundleID)
                if descriptor?.keepAlive == true { row[CourierKey.keepAlive] = true }
                if descriptor?.runAtLoad == true { row[CourierKey.runAtLoad] = true }
                if catalog.isDisabled(status.bundleID) { row[CourierKey.disabled] = true }
                if status.keepAliveFailed { row[CourierKey.failed] = true }
                if !status.ends.isEmpty { row[CourierKey.ends] = status.ends.map { Self.endRow($0, now: now) } }
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

    /// One `AppEnd` as a row of `ends`.
    static func endRow(_ end: AppEnd, now: Date) -> [String: DBusValue] {
        let endedAt = now.timeIntervalSince1970 * 1000 - Double(end.ago.milliseconds)
        var row = [String: DBusValue](
            CourierKey.endedAtMS(UInt64(max(0, endedAt))), CourierKey.reason(end.reason), CourierKey.queued(UInt32(clamping: end.queued))
        )
        if let pid = end.pid { row[CourierKey.pid] = UInt32(bitPattern: pid) }
        if let lifetime = end.lifetime { row[CourierKey.lifetimeMS] = lifetime.milliseconds }
        switch end.status {
        case .exited(let code)?: row[CourierKey.exitCode] = code
        case .signaled(let signal)?: row[CourierKey.signal] = signal
        case nil: break
        }
        if let who = end.requestedBy { row[CourierKey.requestedBy] = who }
        if end.forced { row[CourierKey.forced] = true }
        if let url = end.unanswered { row[CourierKey.unanswered] = url }
        if !end.log.isEmpty { row[CourierKey.log] = end.log }
        return row
    }

    /// `Kill (s bundle_id) → ()`: SIGKILL without notice (`courier quit --force`); the end is
    /// recorded as forced. Returns once the signal is sent.
    func killMethod() -> DBusMethod {
        Broker1.kill.serving { [self] (call: MethodCall) async throws -> [DBusValue] in
            let bundleID = call.arguments[0].stringValue ?? ""
            do {
                try await refuseAppCaller(call, controlling: bundleID)
                try dispatcher.kill(bundleID: bundleID, by: call.sender?.rawValue ?? "?")
                return []
            } catch {
                throw Self.dbusError(error)
            }
        }
    }

    /// `Launch (s bundle_id, a{sv} options) → (a{sv} result)`: starts the app without a URL and
    /// replies once it has checked in (`already-running` when it ran already, `state`, `pid`).
    func launchMethod() -> DBusMethod {
        Broker1.launch.serving { [self] (call: MethodCall) async throws -> [DBusValue] in
            try await control(call) { (descriptor, order) async throws(CourierError) -> LaunchAnswer in try await dispatcher.launch(descriptor, order) }
        }
    }

    /// `Restart (s bundle_id, a{sv} options) → (a{sv} result)`: terminates the app with notice,
    /// then launches it; requests that arrive meanwhile go to the new instance.
    func restartMethod() -> DBusMethod {
        Broker1.restart.serving { [self] (call: MethodCall) async throws -> [DBusValue] in
            try await control(call) { (descriptor, order) async throws(CourierError) -> LaunchAnswer in try await dispatcher.restart(descriptor, order) }
        }
    }

    /// `Launch` and `Restart`: the app must be registered, not disabled, and launchable by the broker.
    private func control(_ call: MethodCall, _ body: (AppDescriptor, LaunchOrder) async throws(CourierError) -> LaunchAnswer) async throws -> [DBusValue] {
        let bundleID = call.arguments[0].stringValue ?? ""
        let options = call.arguments[1].vardictValue ?? [:]
        do throws(CourierError) {
            guard let descriptor = catalog.descriptor(bundleID: bundleID) else {
                throw CourierError(.noHandler, "no app with bundle id \(bundleID) is registered; `courier status` lists them")
            }
            try catalog.refuseIfDisabled(bundleID)
            guard !descriptor.dbusActivatable else {
                throw CourierError(.notPermitted, "\(bundleID) is a desktop app the bus starts (CourierDBusActivatable); Courier does not manage its life")
            }
            try await refuseAppCaller(call, controlling: bundleID)
            let order = LaunchOrder(by: call.sender?.rawValue ?? "-", arguments: try options.decode(CourierKey.arguments) ?? [], fresh: try options.decode(CourierKey.fresh) ?? false)
            let answer = try await body(descriptor, order)
            var reply = [String: DBusValue](CourierKey.alreadyRunning(answer.alreadyRunning), CourierKey.state(answer.state.name))
            if let pid = answer.state.pid { reply[CourierKey.pid] = UInt32(bitPattern: pid) }
            return [.vardict(reply)]
        } catch {
            throw Self.dbusError(error)
        }
    }

    /// Launching, restarting and killing apps are the user's tools: an app may do them to itself,
    /// never to another app (it could otherwise pass arguments to it, or end it, around its caller
    /// rules).
    private func refuseAppCaller(_ call: MethodCall, controlling bundleID: String) async throws(CourierError) {
        guard let caller = await queryingApp(call.sender?.rawValue ?? ""), caller.bundleID != bundleID else { return }
        throw CourierError(.notPermitted, "\(caller.bundleID) may not launch, restart or kill \(bundleID): apps control only themselves; the user does this with `courier launch|restart|quit`")
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
