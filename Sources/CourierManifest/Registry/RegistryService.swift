public import CourierTypes
public import CourierNames
import Foundation
import Synchronization

/// The registry as a long-lived service: loads the manifest folders and the persisted state,
/// registers and unregisters manifests at runtime, reloads on change (inotify, debounced), saves
/// the user's defaults and the first-claim order, and tells subscribers what changed.
///
/// The broker serves this over D-Bus; the offline CLI uses it for one command and exits. All
/// routing logic is in ``Registry`` (a value); this class only adds files and notifications.
///
/// Synchronous and thread-safe: every method may be called from any thread (a D-Bus handler, the
/// watcher's queue, a task). Readers take a consistent ``snapshot``; files are read outside the
/// lock, so a reload never blocks lookups for the time it takes to read the folders.
public final class RegistryService: Sendable {
    /// Where to read from and write to.
    public struct Configuration: Sendable {
        /// Manifest folders in precedence order.
        public var folders: [String]
        /// Report folders that do not exist (true when the user named them).
        public var reportMissingFolders: Bool
        /// Where defaults.json and claims.json live; nil keeps the state in memory only.
        public var stateFolder: String?
        /// Where `courier register` installs manifests (``CourierLayout/registrationFolder``): created
        /// when watching starts if it is among `folders`, so that it is watched from the start.
        public var registrationFolder: String?
        public var loader: ManifestLoader
        public var reservedSchemes: Set<String>
        public var types: TypeGraph

        public init(
            folders: [String], reportMissingFolders: Bool = true, stateFolder: String?,
            loader: ManifestLoader = ManifestLoader(), reservedSchemes: Set<String> = Registry.defaultReservedSchemes,
            types: TypeGraph = TypeGraph(), registrationFolder: String? = nil
        ) {
            self.registrationFolder = registrationFolder
            self.folders = folders
            self.reportMissingFolders = reportMissingFolders
            self.stateFolder = stateFolder
            self.loader = loader
            self.reservedSchemes = reservedSchemes
            self.types = types
        }

        /// The standard configuration: `--manifests` folders (or `COURIER_MANIFEST_PATH`, or the XDG
        /// defaults) and the state in `$XDG_CONFIG_HOME/courier`.
        public static func standard(manifestFolders explicit: [String] = [], layout: CourierLayout = .current()) -> Configuration {
            let (folders, named) = layout.manifestFolders(explicit: explicit)
            return Configuration(folders: folders, reportMissingFolders: named, stateFolder: layout.configFolder,
                                 registrationFolder: layout.registrationFolder)
        }
    }

    public let configuration: Configuration

    private struct State {
        var registry: Registry { didSet { revision &+= 1 } }
        /// Bumped by every change of `registry`, so readers can keep what they derived from it.
        var revision: UInt64 = 0
        /// Manifests registered by path from outside the folders; re-read on every reload, and
        /// saved in the state folder (`registrations.json`) so that the next broker loads them too.
        var extraPaths: [String] = []
        var subscribers: [UInt64: AsyncStream<RegistryChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var watcher: ManifestWatcher?
        /// Decides which apps of a reload must keep their current registration (``holdingReloads(_:)``).
        var reloadGuard: ReloadGuard?
        /// Problems reading or saving Courier's own state, kept for the dump.
        var stateDiagnostics: [ManifestDiagnostic] = []
    }

    private let state: Mutex<State>

    /// Loads the folders and the persisted state.
    public init(configuration: Configuration) {
        self.configuration = configuration
        var preferences = RegistryPreferences()
        var claims = ClaimOrder()
        var diagnostics: [ManifestDiagnostic] = []
        var extraPaths: [String] = []
        if let folder = configuration.stateFolder {
            let stored = RegistryStateStore(folder: folder).load()
            preferences = stored.preferences
            claims = stored.claimOrder
            extraPaths = stored.registeredPaths
            diagnostics = stored.diagnostics
        }
        let empty = Registry(types: configuration.types, preferences: preferences, claimOrder: claims, reservedSchemes: configuration.reservedSchemes)
        let loaded = configuration.loader.load(folders: configuration.folders, reportMissing: configuration.reportMissingFolders)
        // A saved registration whose file is gone or broken stays saved (its diagnostic says why
        // it is not loaded): putting the file back restores it on the next reload.
        let extra = configuration.loader.load(files: extraPaths)
        var initial = State(registry: Registry.build(files: loaded.files + extra, folderDiagnostics: loaded.diagnostics, previous: empty).registry)
        initial.extraPaths = extraPaths
        initial.stateDiagnostics = diagnostics
        Self.persistClaims(&initial, folder: configuration.stateFolder)
        state = Mutex(initial)
    }

    deinit {
        // Stopped outside the lock: stopping waits for a running watcher callback.
        let watcher = state.withLock { $0.watcher }
        watcher?.stop()
    }

    // MARK: - Reading

    /// The current routing table: a complete, consistent value.
    public var snapshot: Registry { state.withLock { $0.registry } }
    /// Same as ``snapshot``.
    public var registry: Registry { snapshot }
    /// Changes whenever the registry does (a counter, not a time): a reader that caches what it
    /// derived from a ``snapshot`` keeps it while this stays the same.
    public var revision: UInt64 { state.withLock { $0.revision } }

    public func handlers(forScheme scheme: String) -> HandlerResolution { snapshot.handlers(forScheme: scheme) }
    public func handlers(forType identifier: String) -> HandlerResolution { snapshot.handlers(forType: identifier) }
    public func application(bundleIdentifier: String) -> Manifest? { snapshot.application(bundleIdentifier: bundleIdentifier) }

    /// Every diagnostic, including problems with Courier's own state files.
    public var diagnostics: [ManifestDiagnostic] {
        let (registry, extra) = state.withLock { ($0.registry, $0.stateDiagnostics) }
        return extra + registry.diagnostics
    }

    /// The dump (`courier dump`, `ListApplications`), with `extraDiagnostics` after the state files' own.
    public func dump(extraDiagnostics: [ManifestDiagnostic] = []) -> RegistryDump {
        let (registry, extra) = state.withLock { ($0.registry, $0.stateDiagnostics) }
        return RegistryDump(registry: registry, extraDiagnostics: extra + extraDiagnostics)
    }

    // MARK: - Changing

    /// Given the registry now and the one a reload would make, the apps whose change must not take
    /// effect yet, with the reason for each (bundle id → why). Called under the service's lock: it
    /// must be quick and must not call back into the service.
    public typealias ReloadGuard = @Sendable (_ current: Registry, _ proposed: Registry) -> [String: String]

    /// Has every later reload hold back what `guard` names: such an app keeps its current
    /// registration (or, new, stays out), with a `held-registry-change` diagnostic naming the file.
    /// The broker holds back files that would take a running app's bundle id or scheme.
    public func holdingReloads(_ guard: ReloadGuard?) {
        state.withLock { $0.reloadGuard = `guard` }
    }

    /// Re-reads every folder (and manifests registered by path). Broken files keep their app's last
    /// good version; changes the reload guard names are held back.
    @discardableResult
    public func reload() -> RegistryChange {
        let extraPaths = state.withLock { $0.extraPaths }
        let loaded = configuration.loader.load(folders: configuration.folders, reportMissing: configuration.reportMissingFolders)
        let extra = configuration.loader.load(files: extraPaths)
        return state.withLock { state in
            var files = loaded.files + extra
            var (next, change) = Registry.build(files: files, folderDiagnostics: loaded.diagnostics, previous: state.registry)
            let held = state.reloadGuard?(state.registry, next) ?? [:]
            if !held.isEmpty {
                files = Self.holding(held, in: files, current: state.registry)
                (next, change) = Registry.build(files: files, folderDiagnostics: loaded.diagnostics, previous: state.registry)
                change.held = held
            }
            change.origin = .manifestFolder
            state.registry = next
            Self.persistClaims(&state, folder: configuration.stateFolder)
            Self.publish(change, to: state)
            return change
        }
    }

    /// `files` with the apps in `held` as they are in `current`: a file declaring one of them keeps
    /// the current version when it is the file that version came from, else it is left out; either
    /// way it gets a diagnostic that says why and how to confirm.
    private static func holding(_ held: [String: String], in files: [ManifestLoader.FileResult], current: Registry) -> [ManifestLoader.FileResult] {
        files.map { file in
            guard let id = file.manifest?.bundleIdentifier.rawValue, let reason = held[id] else { return file }
            var file = file
            let kept = current.application(bundleIdentifier: id).flatMap { $0.path == file.path ? $0 : nil }
            file.manifest = kept
            let now = kept == nil ? "it is not registered" : "the registered version stays in effect"
            file.diagnostics.append(ManifestDiagnostic(
                file: file.path, keyPath: "CFBundleIdentifier",
                message: "held back: \(reason); \(now) while that app runs — confirm with `courier register --replace \(file.path)`, or quit the app and save the file again",
                severity: .warning, code: .heldRegistryChange))
            return file
        }
    }

    /// Registers the manifest file at `path` (absolute or relative to the current folder). A file
    /// outside the manifest folders is remembered, re-read on reload and saved in the state folder
    /// (`registrations.json`), so that a restarted broker registers it again; when that cannot be
    /// saved the registration is refused (`stateNotWritable`), as it would not outlive this broker.
    ///
    /// `vet` sees the registry now and as it would be, under the service's lock (so the file cannot
    /// change in between), and may refuse; `origin` travels with the published change.
    @discardableResult
    public func register(manifestAt path: String, replacing: Bool = false, origin: RegistryChangeOrigin? = nil,
                         vet: (_ current: Registry, _ proposed: Registry) throws(RegistryError) -> Void = { _, _ in }) throws(RegistryError) -> RegistryChange {
        try register(loaded: configuration.loader.load(file: path), replacing: replacing, origin: origin, vet: vet)
    }

    /// `register(manifestAt:)` of the file open as `descriptor`, known by `path` (absolute; the
    /// caller has checked that it names that file): the manifest is what the descriptor reads.
    @discardableResult
    public func register(descriptor: Int32, path: String, replacing: Bool = false, origin: RegistryChangeOrigin? = nil,
                         vet: (_ current: Registry, _ proposed: Registry) throws(RegistryError) -> Void = { _, _ in }) throws(RegistryError) -> RegistryChange {
        try register(loaded: configuration.loader.load(descriptor: descriptor, path: path), replacing: replacing, origin: origin, vet: vet)
    }

    private func register(loaded result: ManifestLoader.FileResult, replacing: Bool, origin: RegistryChangeOrigin?,
                          vet: (_ current: Registry, _ proposed: Registry) throws(RegistryError) -> Void) throws(RegistryError) -> RegistryChange {
        guard let manifest = result.manifest else {
            throw RegistryError(.invalidManifest, "\(result.path) was not registered: it has errors", diagnostics: result.diagnostics)
        }
        let inFolder = configuration.folders.contains { Paths.directory(of: result.path) == $0 || result.path == $0 }
        return try state.withLock { state throws(RegistryError) -> RegistryChange in
            var proposed = state.registry
            var change = try proposed.register(manifest, diagnostics: result.diagnostics, replacing: replacing)
            try vet(state.registry, proposed)
            if !inFolder && !state.extraPaths.contains(result.path) {
                try saveRegistrations(state.extraPaths + [result.path], failing: "\(result.path) was not registered: it would not survive a restart of the broker")
                state.extraPaths.append(result.path)
            }
            change.origin = origin
            return commit(proposed, change, to: &state)
        }
    }

    /// Registers a manifest built in memory (tests, tools). Its `path` identifies it.
    @discardableResult
    public func register(_ manifest: Manifest, replacing: Bool = false) throws(RegistryError) -> RegistryChange {
        try state.withLock { state throws(RegistryError) -> RegistryChange in
            var next = state.registry
            let change = try next.register(manifest, replacing: replacing)
            return commit(next, change, to: &state)
        }
    }

    /// Unregisters an app. Its file stays where it is; a manifest in a watched folder comes back
    /// on the next reload unless the file is removed too.
    @discardableResult
    public func unregister(bundleIdentifier: String, origin: RegistryChangeOrigin? = nil) throws(RegistryError) -> RegistryChange {
        try state.withLock { state throws(RegistryError) -> RegistryChange in
            let path = state.registry.application(bundleIdentifier: bundleIdentifier)?.path
            var next = state.registry
            var change = try next.unregister(bundleIdentifier: bundleIdentifier)
            if let path, state.extraPaths.contains(path) {
                let remaining = state.extraPaths.filter { $0 != path }
                try saveRegistrations(remaining, failing: "\(bundleIdentifier) was not unregistered: the next broker would register it again")
                state.extraPaths = remaining
            }
            change.origin = origin
            return commit(next, change, to: &state)
        }
    }

    /// Makes `registry` the registry, saves its first-claim order and tells the subscribers of
    /// `change` (under the state's lock); returns `change`.
    private func commit(_ registry: Registry, _ change: RegistryChange, to state: inout State) -> RegistryChange {
        state.registry = registry
        Self.persistClaims(&state, folder: configuration.stateFolder)
        Self.publish(change, to: state)
        return change
    }

    /// Sets and saves the user's default for a scheme.
    @discardableResult
    public func setDefault(_ bundleIdentifier: String, forScheme scheme: String) throws(RegistryError) -> RegistryChange {
        try changePreferences { registry throws(RegistryError) in try registry.setDefault(bundleIdentifier, forScheme: scheme) }
    }

    /// Sets and saves the user's default for a type.
    @discardableResult
    public func setDefault(_ bundleIdentifier: String, forType identifier: String) throws(RegistryError) -> RegistryChange {
        try changePreferences { registry throws(RegistryError) in try registry.setDefault(bundleIdentifier, forType: identifier) }
    }

    /// Forgets and saves the user's default for a scheme, or with `type` true for a type; the
    /// change is empty when there was none.
    @discardableResult
    public func clearDefault(for key: String, type: Bool = false) throws(RegistryError) -> RegistryChange {
        try changePreferences(unlessUnchanged: true) { registry in type ? registry.clearDefault(forType: key) : registry.clearDefault(forScheme: key) }
    }

    /// Applies `edit` to a copy of the registry, saves the user's preferences, and only then routes
    /// by them (a default that cannot be saved is not half applied). With `unlessUnchanged`, an
    /// edit that changed nothing saves and announces nothing.
    private func changePreferences(unlessUnchanged: Bool = false, _ edit: (inout Registry) throws(RegistryError) -> RegistryChange) throws(RegistryError) -> RegistryChange {
        try state.withLock { state throws(RegistryError) -> RegistryChange in
            var next = state.registry
            let change = try edit(&next)
            if unlessUnchanged, next.preferences == state.registry.preferences { return change }
            try savePreferences(next.preferences)
            state.registry = next
            Self.publish(change, to: state)
            return change
        }
    }

    /// Re-reads the user's defaults from the state folder and applies them at once: what the
    /// broker does when `courier default` (or anyone who may write that folder) changed them.
    /// A damaged file is reported in the dump and leaves the defaults as they were.
    @discardableResult
    public func reloadDefaults() -> RegistryChange {
        guard let folder = configuration.stateFolder else { return RegistryChange() }
        let stored = RegistryStateStore(folder: folder).load()
        return state.withLock { state in
            let defaultsPath = RegistryStateStore(folder: folder).defaultsPath
            state.stateDiagnostics.removeAll { $0.file == defaultsPath }
            let problems = stored.diagnostics.filter { $0.file == defaultsPath }
            state.stateDiagnostics += problems
            guard problems.isEmpty else { return RegistryChange() }
            let change = state.registry.replacePreferences(stored.preferences)
            Self.publish(change, to: state)
            return change
        }
    }

    /// Saves the manifests registered from outside the folders (nothing without a state folder).
    private func saveRegistrations(_ paths: [String], failing what: String) throws(RegistryError) {
        guard let folder = configuration.stateFolder else { return }
        do {
            try RegistryStateStore(folder: folder).save(registeredPaths: paths)
        } catch {
            throw RegistryError(.stateNotWritable, "\(what): \(error.message)")
        }
    }

    private func savePreferences(_ preferences: RegistryPreferences) throws(RegistryError) {
        guard let folder = configuration.stateFolder else { return }
        try RegistryStateStore(folder: folder).save(preferences: preferences)
    }

    private static func persistClaims(_ state: inout State, folder: String?) {
        guard let folder else { return }
        do {
            let merged = try RegistryStateStore(folder: folder).save(claimOrder: state.registry.claimOrder, removing: state.registry.unregisteredSinceSave)
            state.registry.claimOrderSaved(merged)
        } catch {
            let path = RegistryStateStore(folder: folder).claimsPath
            if !state.stateDiagnostics.contains(where: { $0.file == path }) {
                state.stateDiagnostics.append(ManifestDiagnostic(file: path, keyPath: "", message: error.message + "; the first-claim order is kept in memory only", severity: .warning, code: .unreadable))
            }
        }
    }

    // MARK: - Notifications

    /// A stream of changes, one element per registration, unregistration, default or reload that
    /// changed something. Ends when the subscriber stops iterating.
    public func changes() -> AsyncStream<RegistryChange> {
        let (stream, continuation) = AsyncStream<RegistryChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private static func publish(_ change: RegistryChange, to state: State) {
        guard !change.isEmpty else { return }
        for continuation in state.subscribers.values { continuation.yield(change) }
    }

    // MARK: - Watching

    /// Starts reloading on changes in the manifest folders (inotify, debounced). Folders created
    /// later are not watched; the registration folder is created here when it is among the folders.
    public func startWatching(debounceMilliseconds: Int = 200) throws(RegistryError) {
        guard state.withLock({ $0.watcher == nil }) else { return }
        if let folder = configuration.registrationFolder, configuration.folders.contains(folder) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let watcher = try ManifestWatcher(folders: configuration.folders, debounceMilliseconds: debounceMilliseconds) { [weak self] _ in
            self?.reload()
        }
        let previous = state.withLock { state -> ManifestWatcher? in
            defer { state.watcher = watcher }
            return state.watcher
        }
        previous?.stop()
    }

    /// Stops watching.
    public func stopWatching() {
        let watcher = state.withLock { state -> ManifestWatcher? in
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.stop()
    }

    /// The folders being watched (empty when not watching).
    public var watchedFolders: [String] { state.withLock { $0.watcher }?.watchedFolders ?? [] }
}
