import CourierManifest
import CourierNames
import DBus
import CourierProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The registry members of `org.courier.Broker1` — `RegisterManifest`,
/// `RegisterManifestWithOptions`, `Unregister`, the `RegistryChanged` signal — and who may use
/// them (`RegistryAuthority`, docs/security.md).
///
/// Registration reaches the broker two ways, and both are guarded and recorded: a D-Bus call, whose
/// caller the bus identifies (pid, uid, `/proc/PID/exe`, the Courier app it is), and a file written
/// into a watched manifests folder, whose writer nobody knows (a change there that would take over
/// a running app is held back). Every change is logged with its origin, announced by
/// `RegistryChanged` (its `details`), and kept — the last `changeLogLimit` — for `GetStatus`
/// `registry-changes`, which `courier dump` prints.
extension BrokerService {

    /// How many registry changes `GetStatus` keeps.
    static let changeLogLimit = 32

    /// `RegisterManifest (s path) → (s bundle_id)`: `RegisterManifestWithOptions` without options.
    func registerManifestMethod() -> DBusMethod {
        Broker1.registerManifest.serving { [self] call in
            try await register(call, path: call.arguments.decode(String.self, at: 0), descriptor: nil, replace: false, via: Broker1.registerManifest.name.rawValue)
        }
    }

    /// `RegisterManifestWithOptions (s path, a{sv} options) → (s bundle_id)`. Options: `replace` b —
    /// the caller confirms that the manifest may take over a running app (its bundle id pointed at
    /// another executable, or a scheme it handles); a re-pointed app is asked to quit, so the next
    /// request launches the executable the registry now names.
    ///
    /// The broker reads `path` itself, so a refusal says only that the file was not registered:
    /// missing, unreadable, not a regular file, not a property list and not a valid manifest all
    /// answer alike, telling a caller nothing about files it cannot read. `RegisterManifestFile`
    /// (the caller's own descriptor) answers with the diagnostics.
    func registerManifestWithOptionsMethod() -> DBusMethod {
        Broker1.registerManifestWithOptions.serving { [self] call in
            let options = try call.arguments.decode([String: DBusValue].self, at: 1)
            let replace: Bool
            do throws(CourierError) { replace = try options.decode(CourierKey.replace) ?? false } catch { throw error.dbusError }
            return try await register(call, path: call.arguments.decode(String.self, at: 0), descriptor: nil, replace: replace, via: Broker1.registerManifestWithOptions.name.rawValue)
        }
    }

    /// `RegisterManifestFile (h file, a{sv} options) → (s bundle_id)`: the manifest is what the
    /// caller's descriptor reads — only a file the caller could open itself — and the answer has
    /// its diagnostics. Options: `path` s (required) — where the file is, absolute; it must name
    /// the descriptor's file (same device and inode), and is what the registry knows the app by
    /// and re-reads on reload; `replace` b as for `RegisterManifestWithOptions`.
    func registerManifestFileMethod() -> DBusMethod {
        Broker1.registerManifestFile.serving { [self] call in
            let file = try call.arguments.decode(UnixFD.self, at: 0)
            defer { file.close() }
            let options = try call.arguments.decode([String: DBusValue].self, at: 1)
            let replace: Bool
            let path: String?
            do throws(CourierError) {
                replace = try options.decode(CourierKey.replace) ?? false
                path = try options.decode(CourierKey.path)
            } catch { throw error.dbusError }
            let method = Broker1.registerManifestFile.name.rawValue
            guard let path, path.hasPrefix("/") else {
                throw CourierError(.invalidArguments, "\(method) needs the option '\(CourierKey.path)' (s): the absolute path of the file the descriptor is open on").dbusError
            }
            guard let descriptor = file.rawValue, Self.sameFile(descriptor, path) else {
                throw CourierError(.invalidArguments, "the option '\(CourierKey.path)' (\(path)) does not name the file the descriptor is open on; pass the path you opened").dbusError
            }
            return try await register(call, path: path, descriptor: descriptor, replace: replace, via: method)
        }
    }


    /// Whether `path` names the file open as `descriptor` (same device and inode).
    private static func sameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private func register(_ call: MethodCall, path: String, descriptor: Int32?, replace: Bool, via: String) async throws -> [DBusValue] {
        let origin = await registryOrigin(of: call, via: via)
        if let refusal = Self.sandboxRefusal(origin) { throw refusal.dbusError }
        let authority = RegistryAuthority(running: runningApps(), callerApp: origin.application, replace: replace)
        do {
            let (bundleID, takeovers) = try await catalog.register(manifestAt: path, descriptor: descriptor, authority: authority, origin: origin)
            for takeover in takeovers {
                logger.notice("registration of \(path) by \(origin) took over a running app (confirmed): \(takeover)")
                // A re-pointed app's running instance is the old executable: it quits, with notice,
                // so the next request launches the new one. An app that only lost a scheme runs on.
                if case .repointed = takeover.kind {
                    try? dispatcher.terminate(bundleID: takeover.bundleID, reason: "its registration now launches another executable (\(origin))")
                }
            }
            return [.string(bundleID)]
        } catch where descriptor == nil && error.code == .invalidManifest {
            throw CourierError(.invalidManifest, "\(path) was not registered: it is missing, unreadable, not a regular file, not a property list or not a valid manifest (\(via) answers these alike; open the file and pass it to \(Broker1.registerManifestFile.name.rawValue), or run `courier register \(path)`, to see why)").dbusError
        } catch {
            throw Self.dbusError(error)
        }
    }

    /// `Unregister (s bundle_id) → ()`. A running app is asked to quit (its registration is gone).
    func unregisterMethod() -> DBusMethod {
        Broker1.unregister.serving { [self] call in
            let bundleID = try call.arguments.decode(String.self, at: 0)
            let origin = await registryOrigin(of: call, via: Broker1.unregister.name.rawValue)
            if let refusal = Self.sandboxRefusal(origin) { throw refusal.dbusError }
            if let refusal = RegistryAuthority(running: [], callerApp: origin.application).refusal(unregistering: bundleID) {
                logger.notice("Unregister of \(bundleID) refused (\(origin)): \(refusal)")
                throw CourierError(.notPermitted, refusal).dbusError
            }
            do {
                _ = try await catalog.unregister(bundleID: bundleID, origin: origin)
            } catch {
                throw Self.dbusError(error)
            }
            if runningApps().contains(bundleID) {
                try? dispatcher.terminate(bundleID: bundleID, reason: "unregistered (\(origin))")
            }
            return []
        }
    }

    /// `NotPermitted` when the caller runs in a sandbox (`SandboxIdentity`): a manifest names a
    /// command the broker runs outside any sandbox, so registering one would let a sandboxed app
    /// out, and unregistering would let it remove apps it cannot see.
    static func sandboxRefusal(_ origin: RegistryChangeOrigin) -> CourierError? {
        guard let pid = origin.pid, let sandbox = SandboxIdentity.of(pid: pid) else { return nil }
        return CourierError(.notPermitted, "\(origin.via) refused: the caller (pid \(pid)) runs in \(sandbox), and sandboxed apps may not change Courier's registry (a manifest names a command the broker runs outside any sandbox); register the app from outside the sandbox")
    }

    /// Who is calling, for the registry's authority and its log: credentials from the bus, the
    /// executable from `/proc`, and the Courier app it is (or a process of).
    func registryOrigin(of call: MethodCall, via: String) async -> RegistryChangeOrigin {
        let sender = call.sender?.rawValue ?? ""
        var origin = RegistryChangeOrigin(via: via, uniqueName: sender.isEmpty ? nil : sender)
        if let name = call.sender, let credentials = try? await connection.credentials(of: name) {
            origin.pid = credentials.processID.map { Int32(bitPattern: $0) }
            origin.uid = credentials.userID
        }
        if let pid = origin.pid {
            let path = ProcessIdentity.of(pid: pid).executablePath
            if !path.isEmpty { origin.executable = path }
        }
        origin.application = await queryingApp(sender)?.bundleID
        return origin
    }

    /// The apps that are running or launching: what a registration may not take over silently.
    func runningApps() -> Set<String> {
        Set(dispatcher.statuses().filter { if case .notRunning = $0.state { false } else { true } }.map(\.bundleID))
    }

    /// Logs and records `change`, then emits `RegistryChanged(as added, as removed, as updated,
    /// a{sv} details)`; details: `via` s, and when known `pid` u, `uid` u, `executable` s,
    /// `unique-name` s, `source-application` s; `held` as (held-back changes, one line each).
    func emitRegistryChanged(_ change: CatalogChange) {
        guard !change.isEmpty else { return }
        let origin = change.origin.map(\.description) ?? "unknown origin"
        var line = "registry changed by \(origin):"
        for (what, ids) in [("added", change.added), ("removed", change.removed), ("updated", change.updated)] where !ids.isEmpty {
            line += " \(what) \(ids.joined(separator: ", "));"
        }
        let held = change.held.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if !held.isEmpty { line += " held back \(held.joined(separator: "; "));" }
        line.removeLast()
        (held.isEmpty ? logger.info("\(line)") : logger.notice("\(line)"))
        changeLog.withLock { log in
            log.append(line)
            if log.count > Self.changeLogLimit { log.removeFirst(log.count - Self.changeLogLimit) }
        }
        registryObserver?()
        var details: [String: DBusValue] = [String: DBusValue](CourierKey.via(change.origin?.via ?? ""))
        if let origin = change.origin {
            if let pid = origin.pid { details[CourierKey.pid] = UInt32(bitPattern: pid) }
            if let uid = origin.uid { details[CourierKey.uid] = uid }
            if let executable = origin.executable { details[CourierKey.executable] = executable }
            if let name = origin.uniqueName { details[CourierKey.uniqueName] = name }
            if let app = origin.application { details[CourierKey.sourceApplication] = app }
        }
        if !held.isEmpty { details[CourierKey.held] = held }
        do {
            try Broker1.registryChanged.emit(
                on: connection, path: Broker1.objectPath,
                [.strings(change.added), .strings(change.removed), .strings(change.updated), .vardict(details)]
            )
        } catch {
            logger.warning("cannot emit RegistryChanged: \(error)")
        }
    }
}
