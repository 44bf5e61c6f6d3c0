public import CourierManifest
public import CourierNames
import CourierURL
import CourierIRI
import Foundation
public import Logging
import Synchronization

/// The broker's registry: `CourierManifest.RegistryService` (manifest folders, runtime
/// registration, the user's defaults and first-claim order persisted in `$XDG_CONFIG_HOME/courier`,
/// hot reload on file changes), with URLs checked by `CourierURL` before anything is launched —
/// first RFC 3986, then, when the owning app's manifest declares `CourierURLFormat`, the app's own
/// format. Routing reads the service's synchronous snapshot, so a request never waits on the
/// registry actor.
public final class ManifestCatalog: ApplicationCatalog {
    public let service: RegistryService
    public let manifestPaths: [String]
    let defaultLaunchTimeout: Duration
    let logger: Logger
    /// Decoded `CourierURLFormat`, keyed by the manifest it came from (a changed manifest misses).
    private let formats = Mutex<[Manifest: URLFormat?]>([:])
    /// What `resolve` found per scheme, valid for one registry revision: a warm `OpenURL` then
    /// costs one dictionary lookup instead of a handler resolution and a manifest hash.
    private let routes = Mutex(RouteCache())

    private struct Route {
        let descriptor: AppDescriptor
        let format: URLFormat?
    }

    private struct RouteCache {
        var revision: UInt64 = .max
        var byScheme: [String: Route] = [:]
    }

    public init(configuration: RegistryService.Configuration, defaultLaunchTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "org.courier.broker")) {
        self.service = RegistryService(configuration: configuration)
        self.manifestPaths = configuration.folders
        self.defaultLaunchTimeout = defaultLaunchTimeout
        self.logger = logger
        for diagnostic in service.snapshot.diagnostics { logger.warning("\(diagnostic)") }
    }

    /// Manifests from exactly these folders, state kept in memory (tests, benchmarks).
    public convenience init(folders: [String], defaultLaunchTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "org.courier.broker")) {
        self.init(configuration: .init(folders: folders, reportMissingFolders: false, stateFolder: nil), defaultLaunchTimeout: defaultLaunchTimeout, logger: logger)
    }

    /// Each registered app with the schemes the registry routes to it (`Registry.schemeOwnerships`):
    /// what courierd's desktop entries declare.
    public func schemeOwners() -> [Registry.SchemeOwnership] { service.snapshot.schemeOwnerships() }

    // MARK: HandlerResolver

    public func resolve(url: String, bundleID: String?) throws(CourierError) -> AppDescriptor {
        let reference = try Self.parse(url)
        let route = if let bundleID { try self.route(bundleID: bundleID) } else { try self.route(scheme: reference.scheme ?? "") }
        let applicable = route.format.flatMap { $0.applies(to: reference) ? $0 : nil }
        if applicable?.allowsControlCharacters != true, let finding = URLTextCheck.firstUnclean(in: reference) {
            throw URLTextCheck.refusal(finding, in: url, bundleID: route.descriptor.bundleID)
        }
        if let format = applicable {
            do {
                try format.validate(reference)
            } catch {
                throw CourierError(.invalidURL, "\(url) does not match the URL format \(route.descriptor.bundleID) declares: \(error)")
            }
        }
        return route.descriptor
    }

    /// The app that owns `scheme`, from the route cache while the registry is unchanged.
    private func route(scheme: String) throws(CourierError) -> Route {
        let key = scheme.lowercased()
        let revision = service.revision
        if let cached = routes.withLock({ $0.revision == revision ? $0.byScheme[key] : nil }) { return cached }
        let registry = service.snapshot
        let resolution = registry.handlers(forScheme: key)
        guard let chosen = resolution.chosen, let app = registry.application(bundleIdentifier: chosen.bundleIdentifier) else {
            let disabled = resolution.candidates.filter { $0.status == .disabled }.map(\.bundleIdentifier)
            if !disabled.isEmpty {
                throw CourierError(.disabled, "no app handles \(scheme): URLs now: \(disabled.joined(separator: ", ")) claim\(disabled.count == 1 ? "s" : "") it but \(disabled.count == 1 ? "is" : "are") disabled; `courier enable \(disabled[0])` takes it back into routing")
            }
            throw Self.noHandler(scheme: scheme, problem: resolution.problem, advice: registry.noHandlerAdvice(forScheme: key))
        }
        let route = Route(descriptor: descriptor(app), format: format(of: app))
        // Stored under the revision read before the snapshot: if the registry changed in between,
        // the next lookup sees a newer revision and resolves again.
        routes.withLock { cache in
            if cache.revision != revision { cache = RouteCache(revision: revision) }
            cache.byScheme[key] = route
        }
        return route
    }

    /// The app a request names with the `bundle-id` option (rare: not cached).
    private func route(bundleID: String) throws(CourierError) -> Route {
        guard let app = service.snapshot.application(bundleIdentifier: bundleID) else {
            throw CourierError(.noHandler, "no app with bundle id \(bundleID) is registered; `courier status` lists them")
        }
        try refuseIfDisabled(bundleID)
        return Route(descriptor: descriptor(app), format: format(of: app))
    }

    /// Whether the user took `bundleID` out of routing.
    public func isDisabled(_ bundleID: String) -> Bool {
        service.snapshot.preferences.disabled.contains(bundleID)
    }

    public func descriptor(bundleID: String) -> AppDescriptor? {
        service.snapshot.application(bundleIdentifier: bundleID).map(descriptor)
    }

    // MARK: ApplicationCatalog

    public func handlers(forURL url: String) throws(CourierError) -> [String] {
        let reference = try Self.parse(url)
        return service.snapshot.handlers(forScheme: reference.scheme ?? "").bundleIdentifiers
    }

    public func register(manifestAt path: String, descriptor: Int32?, authority: RegistryAuthority, origin: RegistryChangeOrigin) async throws(CourierError) -> (bundleID: String, takeovers: [RegistryTakeover]) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var takeovers: [RegistryTakeover] = []
        do {
            let vet = { (current: Registry, proposed: Registry) throws(RegistryError) in
                let review = authority.review(registering: current, as: proposed)
                if let refusal = review.refusal { throw RegistryError(.notPermitted, refusal) }
                takeovers = review.takeovers
            }
            if let descriptor {
                try service.register(descriptor: descriptor, path: absolute, replacing: true, origin: origin, vet: vet)
            } else {
                try service.register(manifestAt: absolute, replacing: true, origin: origin, vet: vet)
            }
            return (service.snapshot.application(atPath: absolute)?.bundleIdentifier.rawValue ?? "", takeovers)
        } catch where error.code == .notPermitted {
            logger.notice("registration of \(absolute) refused (\(origin)): \(error.message)")
            throw CourierError(.notPermitted, error.message)
        } catch where error.code == .stateNotWritable {
            logger.warning("registration of \(absolute) refused (\(origin)): \(error.message)")
            throw CourierError(.failed, error.message)
        } catch {
            let problems = error.diagnostics.map(\.description).joined(separator: "; ")
            throw CourierError(.invalidManifest, problems.isEmpty ? error.message : "\(error.message): \(problems)")
        }
    }

    public func unregister(bundleID: String, origin: RegistryChangeOrigin) async throws(CourierError) -> CatalogChange {
        do {
            return CatalogChange(try service.unregister(bundleIdentifier: bundleID, origin: origin))
        } catch {
            throw CourierError(error.code == .stateNotWritable ? .failed : .noHandler, error.message)
        }
    }

    public func holdTakeovers(of running: @escaping @Sendable () -> Set<String>) {
        service.holdingReloads { current, proposed in
            RegistryAuthority.heldReloads(current: current, proposed: proposed, running: running())
        }
    }

    public func reloadDefaults() -> CatalogChange {
        let change = service.reloadDefaults()
        if !change.isEmpty {
            logger.info("defaults re-read: schemes \(change.schemes), types \(change.types)")
        }
        return CatalogChange(change)
    }

    /// The current registry (a value copy), for the Inbox's type check of `DropFiles`.
    public var registry: Registry { service.snapshot }

    public func dump(extraDiagnostics: [ManifestDiagnostic]) -> RegistryDump {
        service.dump(extraDiagnostics: extraDiagnostics)
    }

    public func setDefault(_ bundleID: String?, for key: String, isType: Bool) throws(CourierError) -> (key: String, previous: String?, chosen: String?) {
        let before = service.snapshot
        let stored = isType ? before.types.canonical(key) : (Registry.scheme(fromURLOrScheme: key) ?? key).lowercased()
        let previous = isType ? before.preferences.typeDefaults[stored] : before.preferences.schemeDefaults[stored]
        do {
            switch (bundleID, isType) {
            case (let id?, true): try service.setDefault(id, forType: stored)
            case (let id?, false): try service.setDefault(id, forScheme: stored)
            case (nil, _): try service.clearDefault(for: stored, type: isType)
            }
        } catch {
            let code: CourierErrorCode = switch error.code {
            case .unknownApplication: .noHandler
            case .stateNotWritable: .failed
            default: .invalidArguments
            }
            throw CourierError(code, error.message)
        }
        let now = service.snapshot
        let chosen = (isType ? now.handlers(forType: stored) : now.handlers(forScheme: stored)).chosen?.bundleIdentifier
        logger.info("default for \(isType ? "type " : "")\(stored) \(bundleID.map { "set to \($0)" } ?? "forgotten") (was \(previous ?? "none"))")
        return (stored, previous, chosen)
    }

    public func applications() -> [ApplicationSummary] {
        service.snapshot.sortedApplications.map {
            ApplicationSummary(bundleID: $0.bundleIdentifier.rawValue, name: $0.name, schemes: $0.schemes, launchable: $0.canLaunch, manifestPath: $0.path)
        }
    }

    public func changes() async -> AsyncStream<CatalogChange> {
        let changes = service.changes()
        return AsyncStream { continuation in
            let task = Task {
                for await change in changes { continuation.yield(CatalogChange(change)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func startWatching() async {
        do {
            try service.startWatching()
        } catch {
            logger.warning("manifest folders are not watched (\(error.message)); `courier register` still works")
        }
    }

    // MARK: Internals

    /// The answer for a scheme no app handles — also what an app gets for a scheme it may not ask
    /// about (`LSApplicationQueriesSchemes`), so the two cannot be told apart.
    static func noHandler(scheme: String, problem: String? = nil, advice: String = "register one with `courier register MANIFEST`") -> CourierError {
        CourierError(.noHandler, "no registered app handles \(scheme): URLs\(problem.map { " (\($0))" } ?? ""); \(advice)")
    }

    /// Host names are DNS names for the schemes that say so everywhere and for an app scheme
    /// whose URL format declares `DNSHost`.
    public func uri(fromIRI url: String) throws(CourierError) -> String {
        try Self.uri(fromIRI: url) { scheme in
            IRI.isDomainNameScheme(scheme) || ((try? route(scheme: scheme))?.format?.dnsHost ?? false)
        }
    }

    static func uri(fromIRI url: String, domainNameHost: (String) -> Bool) throws(CourierError) -> String {
        do {
            return try IRI.uri(from: url, domainNameHost: domainNameHost).uri.string
        } catch {
            let accepted = IRI.suggestion(for: url, domainNameHost: domainNameHost).map { "; the URL it would accept: \($0)" } ?? ""
            throw CourierError(.invalidURL, "\(CleanText.escaped(url.prefix(200))) is not a valid URL: \(error) (at offset \(error.offset))\(accepted)")
        }
    }

    static func parse(_ url: String) throws(CourierError) -> URIReference {
        let reference: URIReference
        do {
            reference = try URIReference(url)
        } catch {
            throw CourierError(.invalidURL, "\(url.prefix(200)) is not a valid URL: \(error) (at offset \(error.offset))")
        }
        guard reference.scheme != nil else {
            throw CourierError(.invalidURL, "\(url.prefix(200)) has no scheme; a URL to open looks like scheme://…, e.g. todolist://www.acme.com?Task")
        }
        return reference
    }

    private func format(of manifest: Manifest) -> URLFormat? {
        if let cached = formats.withLock({ $0[manifest] }) { return cached }
        var format: URLFormat?
        if let value = manifest.urlFormat {
            do {
                format = try URLFormat(propertyList: value.foundationValue)
            } catch {
                logger.warning("\(manifest.path): CourierURLFormat of \(manifest.bundleIdentifier) is invalid (\(error)); its URLs are checked against RFC 3986 only")
            }
        }
        formats.withLock {
            if $0.count > 4096 { $0.removeAll() }
            $0[manifest] = .some(format)
        }
        return format
    }

    private func descriptor(_ manifest: Manifest) -> AppDescriptor {
        let arguments: [String]? = manifest.launchCommand.map { command in
            var arguments = command.arguments
            if case .path(let path) = command.executable { arguments[0] = path }
            return arguments
        }
        return AppDescriptor(
            bundleID: manifest.bundleIdentifier.rawValue, launchArguments: arguments, launchTimeout: defaultLaunchTimeout,
            queriesSchemes: Set(manifest.queriesSchemes.map { $0.lowercased() }),
            dbusActivatable: manifest.dbusActivatable,
            terminatesWhenIdle: manifest.terminatesWhenIdle,
            callers: CallerPolicy(manifest),
            keepAlive: manifest.keepAlive,
            runAtLoad: manifest.runAtLoad,
            name: manifest.name,
            launchImages: manifest.launchImages?.paths ?? [:]
        )
    }
}

extension CatalogChange {
    init(_ change: RegistryChange) {
        self.init(added: change.added, removed: change.removed, updated: change.updated, origin: change.origin, held: change.held)
    }
}
