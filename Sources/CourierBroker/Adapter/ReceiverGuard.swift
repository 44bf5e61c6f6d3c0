import CourierNames
import DBus
import CourierProtocol
import Logging
import Synchronization

/// The broker's receiver checks on the bus: who holds each registered app's bus name, which unique
/// names were admitted at `CheckIn`, and the one log line per impostor.
///
/// - `CheckIn` is admitted only for a process `ReceiverVerifier` ties to the app; the verdict is
///   bound to the caller's unique name (never reused by the bus).
/// - Before every delivery (`GuardedDeliverer`) the binding must exist and still hold (the
///   launched child has not exited, the pid still runs the same file).
/// - Every owner of a registered app's bus name (`NameOwnerChanged`, and a fresh look when a
///   launched app exits before checking in) is verified too: a squatter is reported once and makes
///   opens and drops fail with `NameSquatted`, naming its pid, before anything is launched.
///
/// Foreign desktop apps (`CourierDBusActivatable`) are reached at their well-known name and never
/// check in: they are not verified (docs/security.md).
final class ReceiverGuard: Sendable {
    let verifier: ReceiverVerifier
    private let connection: DBusConnection
    private let resolver: any HandlerResolver
    private let logger: Logger
    private let state = Mutex(State())
    /// Set by `stop`: no more lookups on the bus (the broker's connection is closing).
    private let stopped = Atomic(false)

    /// Who holds an app's bus name, as far as the broker has checked.
    enum Holder: Sendable {
        /// Owned by `uniqueName`; its verdict is being computed.
        case pending(uniqueName: String)
        case checked(uniqueName: String, ReceiverVerdict)
    }

    private struct Binding {
        let bundleID: String
        let verdict: ReceiverVerdict
        /// For `.sameExecutable` and `.sandboxed`: the admitted process, held open (`ProcessHandle`).
        let handle: ProcessHandle?
    }

    private struct State {
        var holders: [String: Holder] = [:]
        /// unique name → what it was admitted as at `CheckIn`.
        var bindings: [String: Binding] = [:]
        /// unique names already reported as impostors (one log line each).
        var reported: Set<String> = []
        /// Instances adopted at start-up whose own `CheckIn` has not come yet.
        var adopted: Set<String> = []
    }

    init(verifier: ReceiverVerifier, connection: DBusConnection, resolver: any HandlerResolver, logger: Logger) {
        self.verifier = verifier
        self.connection = connection
        self.resolver = resolver
        self.logger = logger
    }

    /// The broker stops: background checks still in flight ask the bus nothing more.
    func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether a background check may still ask the bus.
    private var mayAskTheBus: Bool { !stopped.load(ordering: .acquiring) && connection.isConnected }

    // MARK: CheckIn

    /// Admits `uniqueName` (process `pid`, which owns the bus name `bundleID`) as the app, or
    /// throws `NotPermitted` saying why not (and reports the impostor once).
    /// `adopting`: the broker found it running at start-up (BrokerService+Adoption.swift); its
    /// own `CheckIn` then only confirms it (`confirmAdoption`).
    ///
    /// Returns, for a process the broker did not launch, its handle: the very process that was
    /// verified (its `/proc/PID` opened before the verdict, and running the verified file after
    /// it), through which the dispatcher signals it and reads its pid (`Dispatcher.checkIn`).
    @discardableResult
    func admit(bundleID: String, uniqueName: String, pid: Int32?, adopting: Bool = false) throws(CourierError) -> ProcessHandle? {
        // Opened before the verdict is read: if the pid changed hands in between, the handle
        // holds the earlier process, reads as gone, and every delivery is refused.
        let handle = pid.flatMap { ProcessHandle(pid: $0) }
        let verdict = verifier.verdict(bundleID: bundleID, pid: pid)
        record(bundleID: bundleID, uniqueName: uniqueName, verdict)
        guard verdict.isApp else {
            throw CourierError(.notPermitted, "CheckIn as \(bundleID) refused: \(verdict); only the process Courier launched, one running what its manifest launches (the executable, and the script when that is an interpreter), or one in the sandbox its manifest launches, may check in as \(bundleID)")
        }
        let held: ProcessHandle? = if let process = verdict.heldProcess, let handle, handle.executable == process.executable { handle } else { nil }
        state.withLock {
            $0.bindings[uniqueName] = Binding(bundleID: bundleID, verdict: verdict, handle: held)
            if adopting { $0.adopted.insert(uniqueName) }
        }
        return held
    }

    /// True once for an instance adopted at start-up that now checks in as `bundleID`.
    func confirmAdoption(_ uniqueName: String, bundleID: String) -> Bool {
        state.withLock { state in
            guard state.bindings[uniqueName]?.bundleID == bundleID else { return false }
            return state.adopted.remove(uniqueName) != nil
        }
    }

    // MARK: Deliveries

    /// nil when a delivery to `endpoint` may go ahead; the refusal otherwise.
    func refusal(for endpoint: AppEndpoint) -> CourierError? {
        if endpoint.freedesktopApplication { return nil }
        guard let binding = state.withLock({ $0.bindings[endpoint.uniqueName] }), binding.bundleID == endpoint.bundleID else {
            return CourierError(.notPermitted, "\(endpoint.uniqueName) was never admitted as \(endpoint.bundleID); nothing was delivered")
        }
        guard verifier.stillHolds(binding.verdict, bundleID: binding.bundleID, handle: binding.handle) else {
            let now = binding.verdict.pid.map { ProcessIdentity.of(pid: $0).description } ?? "?"
            logger.warning("impostor: \(endpoint.uniqueName) checked in as \(endpoint.bundleID) (\(binding.verdict)) but is now \(now); nothing is delivered to it")
            return CourierError(.notPermitted, "the process that checked in as \(endpoint.bundleID) (\(endpoint.uniqueName)) no longer runs its executable (now \(now)); nothing was delivered")
        }
        return nil
    }

    /// The unique name admitted as `bundleID` for process `pid`, if that admission still holds:
    /// whom a direct link from `pid` may stand for (`AppLinks`).
    func admittedInstance(bundleID: String, pid: Int32) -> String? {
        let candidates = state.withLock { state in
            state.bindings.filter { $0.value.bundleID == bundleID && $0.value.verdict.pid == pid }
        }
        for (uniqueName, binding) in candidates where verifier.stillHolds(binding.verdict, bundleID: bundleID, handle: binding.handle) {
            return uniqueName
        }
        return nil
    }

    /// pid → bundle id of every process admitted at `CheckIn` and still on the bus.
    func admittedProcesses() -> [Int32: String] {
        state.withLock { state in
            var result: [Int32: String] = [:]
            for binding in state.bindings.values { if let pid = binding.verdict.pid { result[pid] = binding.bundleID } }
            return result
        }
    }

    // MARK: Name holders

    /// The refusal for opens and drops when an impostor holds the bus name of `bundleID`.
    ///
    /// `beforeLaunch`: an impostor whose process has already exited does not stop a launch. The
    /// bus drops a dead process's connection, and the name with it, a moment after the exit, and
    /// `NameOwnerChanged` may still be on its way; refusing then would fail an open that is about
    /// to work. Nothing is delivered on that account: delivery needs a `CheckIn` the launched app
    /// makes itself, and if the name is in fact still held (a child kept the connection's socket)
    /// the launched app cannot own it, exits, and `failureBeforeCheckIn` asks again without this
    /// allowance and reports `NameSquatted`.
    func squatter(of bundleID: String, beforeLaunch: Bool = false) -> CourierError? {
        guard case .checked(let uniqueName, let verdict)? = state.withLock({ $0.holders[bundleID] }),
              case .impostor(let process, let reason) = verdict else { return nil }
        if beforeLaunch, let process {
            let now = ProcessIdentity.of(pid: process.pid).executable
            if now == nil || now != process.executable { return nil }   // exited (or its pid reused)
        }
        let who = process.map(\.description) ?? "an unidentified process (\(uniqueName))"
        let kill = process.map { " (kill \($0.pid))" } ?? ""
        return CourierError(.nameSquatted, "the bus name \(bundleID) is held by \(who), which is not \(bundleID): \(reason). Nothing was delivered; stop that process\(kill) and retry")
    }

    /// Whether the bus name of `bundleID` is still held, as far as the broker has heard, by an
    /// instance admitted as the app (or one being checked): when the app is launched again right
    /// after that instance ended, the bus has not yet told the broker that it left, and the new
    /// process could not own the name. `GuardedLauncher` waits for it to go.
    func heldByAnInstance(of bundleID: String) -> Bool {
        state.withLock { state in
            switch state.holders[bundleID] {
            case .pending?: true
            case .checked(_, let verdict)?: verdict.isApp
            case nil: false
            }
        }
    }

    /// Every app whose bus name an impostor holds: bundle id → the impostor (pid may be nil).
    func squatters() -> [String: ProcessIdentity?] {
        state.withLock { state in
            var result: [String: ProcessIdentity?] = [:]
            for (bundleID, holder) in state.holders {
                if case .checked(_, .impostor(let process, _)) = holder { result[bundleID] = process }
            }
            return result
        }
    }

    /// A well-known name changed owner (`NameOwnerChanged`): verify the new owner of a registered
    /// app's name in the background.
    func nameOwnerChanged(_ name: String, newOwner: String?) {
        guard let newOwner else {
            state.withLock { _ = $0.holders.removeValue(forKey: name) }
            return
        }
        guard let descriptor = resolver.descriptor(bundleID: name), !descriptor.dbusActivatable else { return }
        state.withLock { $0.holders[name] = .pending(uniqueName: newOwner) }
        Task { if mayAskTheBus { await check(name, owner: newOwner) } }
    }

    /// A unique name left the bus: forget what it was admitted as.
    func uniqueNameVanished(_ uniqueName: String) {
        state.withLock {
            $0.bindings[uniqueName] = nil
            $0.reported.remove(uniqueName)
            $0.adopted.remove(uniqueName)
        }
    }

    /// Asks the bus who holds `bundleID` now and checks that process (after a launched app exited
    /// before checking in: was its name taken?).
    func refresh(_ bundleID: String) async {
        guard mayAskTheBus, let name = try? ApplicationAddress(bundleID: bundleID).busName,
              let descriptor = resolver.descriptor(bundleID: bundleID), !descriptor.dbusActivatable else { return }
        guard let owner = (try? await connection.nameOwner(of: name)) ?? nil else {
            state.withLock { _ = $0.holders.removeValue(forKey: bundleID) }
            return
        }
        await check(bundleID, owner: owner.rawValue)
    }

    /// Checks `owner`, which held the bus name of `bundleID` a moment ago. An owner whose pid the
    /// bus can no longer tell has usually just left (an app exiting as it is checked): the name's
    /// owner is asked again, and an owner that has gone is forgotten, never recorded as an
    /// unidentified squatter (which would refuse the app's relaunch with `NameSquatted`).
    private func check(_ bundleID: String, owner: String) async {
        let admitted = state.withLock { $0.bindings[owner] }
        let verdict: ReceiverVerdict
        if let admitted, admitted.bundleID == bundleID {
            verdict = admitted.verdict
        } else {
            var pid: UInt32?
            if mayAskTheBus, let name = BusName(validating: owner) { pid = (try? await connection.credentials(of: name))?.processID }
            if pid == nil, mayAskTheBus, let name = try? ApplicationAddress(bundleID: bundleID).busName,
               ((try? await connection.nameOwner(of: name)) ?? nil)?.rawValue != owner {
                state.withLock { state in
                    switch state.holders[bundleID] {
                    case .pending(owner)?, .checked(owner, _)?: state.holders[bundleID] = nil
                    default: break
                    }
                }
                return
            }
            verdict = verifier.verdict(bundleID: bundleID, pid: pid.map { Int32(bitPattern: $0) })
        }
        record(bundleID: bundleID, uniqueName: owner, verdict)
    }

    /// Stores the verdict on the holder of `bundleID` (unless the name moved on meanwhile) and
    /// reports an impostor once.
    private func record(bundleID: String, uniqueName: String, _ verdict: ReceiverVerdict) {
        let firstReport = state.withLock { state -> Bool in
            switch state.holders[bundleID] {
            case .pending(let name)? where name != uniqueName, .checked(let name, _)? where name != uniqueName:
                break   // a newer owner is being checked
            default:
                state.holders[bundleID] = .checked(uniqueName: uniqueName, verdict)
            }
            return !verdict.isApp && state.reported.insert(uniqueName).inserted
        }
        if firstReport {
            logger.warning("impostor: \(uniqueName) holds or claims the bus name \(bundleID) but is \(verdict); it gets no URL and no file")
        }
    }
}
