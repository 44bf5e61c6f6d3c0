public import CourierManifest
import CourierURL
import Foundation
public import Logging
import Synchronization

/// The broker's registry: manifests loaded from folders (and registered at run time) through
/// `CourierManifest`, URLs checked with `CourierURL` before anything is launched — first RFC 3986,
/// then, when the owning app's manifest declares `CourierURLFormat`, the app's own format.
public final class ManifestCatalog: ApplicationCatalog {
    public let manifestPaths: [String]
    let defaultLaunchTimeout: Duration
    let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var registry: Registry
        /// Decoded `CourierURLFormat` per bundle id (`nil` value: declared none or invalid).
        var formats: [String: URLFormat?] = [:]
    }

    /// `--manifests` folders first, then `COURIER_MANIFEST_PATH` (colon-separated), then
    /// `$XDG_DATA_HOME/courier/manifests` (where `courier register` installs manifests).
    public static func searchPath(arguments: [String], environment: [String: String]) -> [String] {
        var folders = arguments.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        folders += (environment["COURIER_MANIFEST_PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        folders.append(dataHome + "/courier/manifests")
        var seen = Set<String>()
        return folders.filter { seen.insert($0).inserted }
    }

    public init(folders: [String], defaultLaunchTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "org.courier.broker")) {
        self.manifestPaths = folders
        self.defaultLaunchTimeout = defaultLaunchTimeout
        self.logger = logger
        let loaded = ManifestLoader().load(folders: folders, reportMissing: false)
        let (registry, change) = Registry.build(files: loaded.files, folderDiagnostics: loaded.diagnostics, previous: Registry())
        for diagnostic in change.diagnostics { logger.warning("\(diagnostic)") }
        state = Mutex(State(registry: registry))
    }

    /// Each registered app with the schemes the registry routes to it (those it claims and wins),
    /// in bundle-id order: what courierd's desktop entries declare.
    public func schemeOwners() -> [(bundleID: String, name: String, schemes: [String])] {
        let registry = state.withLock { $0.registry }
        return registry.sortedApplications.map { manifest in
            let owned = manifest.schemes.filter { registry.handlers(forScheme: $0).chosen?.bundleIdentifier == manifest.bundleIdentifier }
            return (manifest.bundleIdentifier, manifest.name, owned)
        }
    }

    // MARK: HandlerResolver

    public func resolve(url: String, bundleID: String?) throws(BrokerError) -> AppDescriptor {
        let reference = try Self.parse(url)
        let manifest = try state.withLock { state throws(BrokerError) -> Manifest in
            if let bundleID {
                guard let manifest = state.registry.application(bundleIdentifier: bundleID) else {
                    throw BrokerError(.noHandler, "no app with bundle id \(bundleID) is registered; `courier status` lists them")
                }
                return manifest
            }
            let scheme = reference.scheme ?? ""
            let resolution = state.registry.handlers(forScheme: scheme)
            guard let chosen = resolution.chosen, let manifest = state.registry.application(bundleIdentifier: chosen.bundleIdentifier) else {
                throw BrokerError(.noHandler, "no registered app handles \(scheme): URLs\(resolution.problem.map { " (\($0))" } ?? ""); register one with `courier register MANIFEST`")
            }
            return manifest
        }
        if let format = format(of: manifest), format.applies(to: reference) {
            do {
                try format.validate(reference)
            } catch {
                throw BrokerError(.invalidURL, "\(url) does not match the URL format \(manifest.bundleIdentifier) declares: \(error)")
            }
        }
        return descriptor(manifest)
    }

    public func descriptor(bundleID: String) -> AppDescriptor? {
        state.withLock { $0.registry.application(bundleIdentifier: bundleID) }.map(descriptor)
    }

    // MARK: ApplicationCatalog

    public func handlers(forURL url: String) throws(BrokerError) -> [String] {
        let reference = try Self.parse(url)
        return state.withLock { $0.registry.handlers(forScheme: reference.scheme ?? "").bundleIdentifiers }
    }

    public func register(manifestAt path: String) throws(BrokerError) -> CatalogChange {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let file = ManifestLoader().load(file: absolute)
        guard let manifest = file.manifest else {
            let problems = file.diagnostics.map(\.description).joined(separator: "; ")
            throw BrokerError(.invalidManifest, "\(absolute) cannot be registered: \(problems.isEmpty ? "it did not load" : problems)")
        }
        let change = try state.withLock { state throws(BrokerError) -> RegistryChange in
            do {
                let change = try state.registry.register(manifest, diagnostics: file.diagnostics)
                state.formats[manifest.bundleIdentifier] = nil
                return change
            } catch {
                throw BrokerError(.invalidManifest, (error as? RegistryError)?.message ?? "\(error)")
            }
        }
        return CatalogChange(added: change.added, removed: change.removed, updated: change.updated)
    }

    public func unregister(bundleID: String) throws(BrokerError) -> CatalogChange {
        let change = try state.withLock { state throws(BrokerError) -> RegistryChange in
            do {
                state.formats[bundleID] = nil
                return try state.registry.unregister(bundleIdentifier: bundleID)
            } catch {
                throw BrokerError(.noHandler, (error as? RegistryError)?.message ?? "\(error)")
            }
        }
        return CatalogChange(added: change.added, removed: change.removed, updated: change.updated)
    }

    /// The current registry (a value copy), for the Inbox's type check of `DropFiles`.
    public var registry: Registry { state.withLock { $0.registry } }

    public func applications() -> [ApplicationSummary] {
        state.withLock { $0.registry.sortedApplications }.map {
            ApplicationSummary(bundleID: $0.bundleIdentifier, name: $0.name, schemes: $0.schemes, launchable: $0.canLaunch, manifestPath: $0.path)
        }
    }

    // MARK: Internals

    static func parse(_ url: String) throws(BrokerError) -> URIReference {
        let reference: URIReference
        do {
            reference = try URIReference(url)
        } catch {
            throw BrokerError(.invalidURL, "\(url.prefix(200)) is not a valid URL: \(error) (at offset \(error.offset))")
        }
        guard reference.scheme != nil else {
            throw BrokerError(.invalidURL, "\(url.prefix(200)) has no scheme; a URL to open looks like scheme://…, e.g. todolist://www.acme.com?Task")
        }
        return reference
    }

    private func format(of manifest: Manifest) -> URLFormat? {
        let id = manifest.bundleIdentifier
        if let cached = state.withLock({ $0.formats[id] }) { return cached }
        var format: URLFormat?
        if let value = manifest.urlFormat {
            do {
                format = try URLFormat(propertyList: value.foundationValue)
            } catch {
                logger.warning("\(manifest.path): CourierURLFormat of \(id) is invalid (\(error)); URLs for it are checked against RFC 3986 only")
            }
        }
        state.withLock { $0.formats[id] = .some(format) }
        return format
    }

    private func descriptor(_ manifest: Manifest) -> AppDescriptor {
        let arguments: [String]? = manifest.launchCommand.map { command in
            var arguments = command.arguments
            if case .path(let path) = command.executable { arguments[0] = path }
            return arguments
        }
        return AppDescriptor(
            bundleID: manifest.bundleIdentifier, launchArguments: arguments, launchTimeout: defaultLaunchTimeout,
            queriesSchemes: Set(manifest.queriesSchemes.map { $0.lowercased() }),
            dbusActivatable: manifest.dbusActivatable
        )
    }
}
