public import CourierNames
public import CourierManifest
import CourierIRI

/// The registry as the D-Bus adapter needs it: routing (`HandlerResolver`) plus the management
/// methods of `Broker1`. `ManifestCatalog` implements it over `CourierManifest.Registry`.
public protocol ApplicationCatalog: HandlerResolver {
    /// The URI the broker routes and the app receives for `url`, which may be an IRI (RFC 3987:
    /// `todolist://www.acme.com?Café`, `https://例え.jp/`); throws `InvalidURL` with the reason,
    /// its offset in `url`, and the URL that would be accepted when there is one.
    func uri(fromIRI url: String) throws(CourierError) -> String
    /// The apps that can open `url`, the chosen one first; throws `InvalidURL`.
    func handlers(forURL url: String) throws(CourierError) -> [String]
    /// Loads and registers the manifest file at `path` — read from `descriptor` when one is given
    /// (the caller has checked that `path` names its file) — if `authority` allows it
    /// (`NotPermitted` otherwise, nothing changed), and returns its bundle id and the takeovers
    /// `replace` confirmed; throws `InvalidManifest` with its diagnostics. `origin` is logged and announced.
    func register(manifestAt path: String, descriptor: Int32?, authority: RegistryAuthority, origin: RegistryChangeOrigin) async throws(CourierError) -> (bundleID: String, takeovers: [RegistryTakeover])
    /// Removes an app; throws `NoHandler` when it is not registered.
    func unregister(bundleID: String, origin: RegistryChangeOrigin) async throws(CourierError) -> CatalogChange
    /// From now on, reloads of the manifest folders hold back changes that would take over one of
    /// the apps `running()` returns (`RegistryAuthority.heldReloads`).
    func holdTakeovers(of running: @escaping @Sendable () -> Set<String>)
    /// Every change from now on (registrations, unregistrations, reloads): the `RegistryChanged` signal.
    func changes() async -> AsyncStream<CatalogChange>
    /// Every registered app, sorted by bundle id.
    func applications() -> [ApplicationSummary]
    /// Where manifests are read from (for status).
    var manifestPaths: [String] { get }
    /// Re-reads the user's defaults and routes by them from now on (`ReloadDefaults`).
    func reloadDefaults() -> CatalogChange
    /// The registry as it routes now (a value copy): types, apps and their document types.
    var registry: Registry { get }
    /// Everything registered, with the diagnostics and `extraDiagnostics` (`Dump`).
    func dump(extraDiagnostics: [ManifestDiagnostic]) -> RegistryDump
    /// Sets (or, with `bundleID` nil, forgets) the user's default for the scheme or type `key`,
    /// saves it and routes by it at once (`SetDefault`): the key as stored, the default it
    /// replaced, and the app chosen now.
    func setDefault(_ bundleID: String?, for key: String, isType: Bool) throws(CourierError) -> (key: String, previous: String?, chosen: String?)
    /// Whether the user took `bundleID` out of routing (`courier disable`).
    func isDisabled(_ bundleID: String) -> Bool
}

extension ApplicationCatalog {
    /// Host names are DNS names for the schemes that say so everywhere (`http`, `https`, …).
    public func uri(fromIRI url: String) throws(CourierError) -> String {
        try ManifestCatalog.uri(fromIRI: url, domainNameHost: IRI.isDomainNameScheme)
    }
    /// A catalog without user defaults has nothing to re-read.
    public func reloadDefaults() -> CatalogChange { CatalogChange() }
    /// A catalog without user choices disables nothing.
    public func isDisabled(_ bundleID: String) -> Bool { false }

    /// `Disabled` when the user took `bundleID` out of routing (`courier disable`).
    public func refuseIfDisabled(_ bundleID: String) throws(CourierError) {
        if isDisabled(bundleID) {
            throw CourierError(.disabled, "\(bundleID) is disabled: it stays registered but nothing is routed to it or launched; `courier enable \(bundleID)` takes it back")
        }
    }
    /// A catalog without watched folders has no reload to guard.
    public func holdTakeovers(of running: @escaping @Sendable () -> Set<String>) {}
}

/// What a registry operation changed (the payload of the `RegistryChanged` signal).
public struct CatalogChange: Sendable, Hashable {
    public var added: [String]
    public var removed: [String]
    public var updated: [String]
    /// Who made it, when known (a D-Bus caller's credentials, or a manifests folder).
    public var origin: RegistryChangeOrigin?
    /// Changes read from the folders that were held back (bundle id → why).
    public var held: [String: String]

    public init(added: [String] = [], removed: [String] = [], updated: [String] = [], origin: RegistryChangeOrigin? = nil, held: [String: String] = [:]) {
        self.added = added
        self.removed = removed
        self.updated = updated
        self.origin = origin
        self.held = held
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && updated.isEmpty && held.isEmpty }
}

/// One row of `ListApplications`.
public struct ApplicationSummary: Sendable, Hashable {
    public var bundleID: String
    public var name: String
    public var schemes: [String]
    public var launchable: Bool
    public var manifestPath: String?

    public init(bundleID: String, name: String, schemes: [String], launchable: Bool, manifestPath: String?) {
        self.bundleID = bundleID
        self.name = name
        self.schemes = schemes
        self.launchable = launchable
        self.manifestPath = manifestPath
    }
}
