import Foundation
import Synchronization

/// The registry as a long-lived service: loads the manifest folders and the persisted state,
/// registers and unregisters manifests at runtime, reloads on change (inotify, debounced), saves
/// the user's defaults and the first-claim order, and tells subscribers what changed.
///
/// The broker serves this over D-Bus; the offline CLI uses it for one command and exits. All
/// routing logic is in ``Registry`` (a value); this actor only adds files and notifications.
public actor RegistryService {
    /// Where to read from and write to.
    public struct Configuration: Sendable {
        /// Manifest folders in precedence order.
        public var folders: [String]
        /// Report folders that do not exist (true when the user named them).
        public var reportMissingFolders: Bool
        /// Where defaults.json and claims.json live; nil keeps the state in memory only.
        public var stateFolder: String?
        public var loader: ManifestLoader
        public var reservedSchemes: Set<String>
        public var types: TypeGraph

        public init(
            folders: [String], reportMissingFolders: Bool = true, stateFolder: String?,
            loader: ManifestLoader = ManifestLoader(), reservedSchemes: Set<String> = Registry.defaultReservedSchemes,
            types: TypeGraph = TypeGraph()
        ) {
            self.folders = folders
            self.reportMissingFolders = reportMissingFolders
            self.stateFolder = stateFolder
            self.loader = loader
            self.reservedSchemes = reservedSchemes
            self.types = types
        }

        /// The standard configuration: `--manifests` folders (or `COURIER_MANIFEST_PATH`, or the XDG
        /// defaults) and the state in `$XDG_CONFIG_HOME/courier`.
        public static func standard(manifestFolders explicit: [String] = [], directories: CourierDirectories = CourierDirectories()) -> Configuration {
            let (folders, named) = directories.manifestFolders(explicit: explicit)
            return Configuration(folders: folders, reportMissingFolders: named, stateFolder: directories.stateFolder)
        }
    }

    public let configuration: Configuration
    /// The current routing table (a snapshot value).
    public private(set) var registry: Registry {
        didSet { published.withLock { $0 = registry } }
    }
    /// The same table for synchronous readers (``snapshot``), updated with every change.
    private nonisolated let published: Mutex<Registry>
    /// Manifests registered by path from outside the folders; re-read on every reload.
    private var extraPaths: [String] = []
    private var subscribers: [UInt64: AsyncStream<RegistryChange>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0
    private var watcher: ManifestWatcher?
    /// Problems saving state, kept for the dump.
    private var stateDiagnostics: [ManifestDiagnostic] = []

    /// Loads the folders and the persisted state.
    public init(configuration: Configuration) {
        self.configuration = configuration
        var preferences = RegistryPreferences()
        var claims = ClaimOrder()
        var diagnostics: [ManifestDiagnostic] = []
        if let folder = configuration.stateFolder {
            let state = RegistryStateStore(folder: folder).load()
            preferences = state.preferences
            claims = state.claimOrder
            diagnostics = state.diagnostics
        }
        let empty = Registry(types: configuration.types, preferences: preferences, claimOrder: claims, reservedSchemes: configuration.reservedSchemes)
        let loaded = configuration.loader.load(folders: configuration.folders, reportMissing: configuration.reportMissingFolders)
        var registry = Registry.build(files: loaded.files, folderDiagnostics: loaded.diagnostics, previous: empty).registry
        Self.persistClaims(&registry, folder: configuration.stateFolder, diagnostics: &diagnostics)
        self.published = Mutex(registry)
        self.registry = registry
        self.stateDiagnostics = diagnostics
    }

    /// The current routing table, readable without awaiting the actor (for code that must decide
    /// synchronously, such as a D-Bus method handler). Always a complete, consistent value.
    public nonisolated var snapshot: Registry { published.withLock { $0 } }

    // MARK: - Reading

    public func handlers(forScheme scheme: String) -> HandlerResolution { registry.handlers(forScheme: scheme) }
    public func handlers(forType identifier: String) -> HandlerResolution { registry.handlers(forType: identifier) }
    public func application(bundleIdentifier: String) -> Manifest? { registry.application(bundleIdentifier: bundleIdentifier) }

    /// Every diagnostic, including problems with Courier's own state files.
    public var diagnostics: [ManifestDiagnostic] { stateDiagnostics + registry.diagnostics }

    /// The dump (`courier dump`, `ListApplications`).
    public func dump() -> RegistryDump { RegistryDump(registry: registry, extraDiagnostics: stateDiagnostics) }

    // MARK: - Changing

    /// Re-reads every folder (and manifests registered by path). Broken files keep their app's last
    /// good version.
    @discardableResult
    public func reload() -> RegistryChange {
        let loaded = configuration.loader.load(folders: configuration.folders, reportMissing: configuration.reportMissingFolders)
        let extra = configuration.loader.load(files: extraPaths)
        let (next, change) = Registry.build(files: loaded.files + extra, folderDiagnostics: loaded.diagnostics, previous: registry)
        registry = next
        saveClaims()
        publish(change)
        return change
    }

    /// Registers the manifest file at `path` (absolute or relative to the current folder). A file
    /// outside the manifest folders is remembered and re-read on reload.
    @discardableResult
    public func register(manifestAt path: String, replacing: Bool = false) throws(RegistryError) -> RegistryChange {
        let result = configuration.loader.load(file: path)
        guard let manifest = result.manifest else {
            throw RegistryError(.invalidManifest, "\(result.path) was not registered: it has errors", diagnostics: result.diagnostics)
        }
        let change = try registry.register(manifest, diagnostics: result.diagnostics, replacing: replacing)
        let inFolder = configuration.folders.contains { Paths.directory(of: result.path) == $0 }
        if !inFolder && !extraPaths.contains(result.path) { extraPaths.append(result.path) }
        saveClaims()
        publish(change)
        return change
    }

    /// Registers a manifest built in memory (tests, tools). Its `path` identifies it.
    @discardableResult
    public func register(_ manifest: Manifest, replacing: Bool = false) throws(RegistryError) -> RegistryChange {
        let change = try registry.register(manifest, replacing: replacing)
        saveClaims()
        publish(change)
        return change
    }

    /// Unregisters an app. Its file stays where it is; a manifest in a watched folder comes back
    /// on the next reload unless the file is removed too.
    @discardableResult
    public func unregister(bundleIdentifier: String) throws(RegistryError) -> RegistryChange {
        let path = registry.application(bundleIdentifier: bundleIdentifier)?.path
        let change = try registry.unregister(bundleIdentifier: bundleIdentifier)
        if let path { extraPaths.removeAll { $0 == path } }
        saveClaims()
        publish(change)
        return change
    }

    /// Sets and saves the user's default for a scheme.
    @discardableResult
    public func setDefault(_ bundleIdentifier: String, forScheme scheme: String) throws(RegistryError) -> RegistryChange {
        var next = registry
        let change = try next.setDefault(bundleIdentifier, forScheme: scheme)
        try savePreferences(next.preferences)
        registry = next
        publish(change)
        return change
    }

    /// Sets and saves the user's default for a type.
    @discardableResult
    public func setDefault(_ bundleIdentifier: String, forType identifier: String) throws(RegistryError) -> RegistryChange {
        var next = registry
        let change = try next.setDefault(bundleIdentifier, forType: identifier)
        try savePreferences(next.preferences)
        registry = next
        publish(change)
        return change
    }

    private func savePreferences(_ preferences: RegistryPreferences) throws(RegistryError) {
        guard let folder = configuration.stateFolder else { return }
        try RegistryStateStore(folder: folder).save(preferences: preferences)
    }

    private func saveClaims() {
        Self.persistClaims(&registry, folder: configuration.stateFolder, diagnostics: &stateDiagnostics)
    }

    private static func persistClaims(_ registry: inout Registry, folder: String?, diagnostics stateDiagnostics: inout [ManifestDiagnostic]) {
        guard let folder else { return }
        do {
            let merged = try RegistryStateStore(folder: folder).save(claimOrder: registry.claimOrder, removing: registry.unregisteredSinceSave)
            registry.claimOrderSaved(merged)
        } catch {
            let path = RegistryStateStore(folder: folder).claimsPath
            if !stateDiagnostics.contains(where: { $0.file == path }) {
                stateDiagnostics.append(ManifestDiagnostic(file: path, keyPath: "", message: error.message + "; the first-claim order is kept in memory only", severity: .warning, code: .unreadable))
            }
        }
    }

    // MARK: - Notifications

    /// A stream of changes, one element per registration, unregistration, default or reload that
    /// changed something. Ends when the subscriber stops iterating.
    public func changes() -> AsyncStream<RegistryChange> {
        let (stream, continuation) = AsyncStream<RegistryChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UInt64) { subscribers[id] = nil }

    private func publish(_ change: RegistryChange) {
        guard !change.isEmpty else { return }
        for continuation in subscribers.values { continuation.yield(change) }
    }

    // MARK: - Watching

    /// Starts reloading on changes in the manifest folders (inotify, debounced). Folders created
    /// later are not watched; the user folder is created here when it is among the folders.
    public func startWatching(debounceMilliseconds: Int = 200) throws(RegistryError) {
        guard watcher == nil else { return }
        let user = CourierDirectories().userManifestFolder
        if configuration.folders.contains(user) {
            try? FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        }
        watcher = try ManifestWatcher(folders: configuration.folders, debounceMilliseconds: debounceMilliseconds) { [weak self] _ in
            Task { await self?.reload() }
        }
    }

    /// Stops watching.
    public func stopWatching() {
        watcher?.stop()
        watcher = nil
    }

    /// The folders being watched (empty when not watching).
    public var watchedFolders: [String] { watcher?.watchedFolders ?? [] }
}
