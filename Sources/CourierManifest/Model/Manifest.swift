public import CourierNames
public import CourierTypes
/// One app's declarations, read from its Info.plist.
///
/// A value: comparing two manifests tells whether a reload changed anything. Keys Courier does not
/// read are not kept. Schemes are validated and lowercased; claims that failed validation were
/// dropped with a ``ManifestDiagnostic`` and are not here.
public struct Manifest: Sendable, Hashable {
    /// `CFBundleIdentifier`: reverse-DNS, validated once by the parser (its D-Bus name and object
    /// path come with it).
    public var bundleIdentifier: BundleIdentifier
    /// `CFBundleDisplayName`, else `CFBundleName`, else the bundle identifier.
    public var name: String
    /// `CFBundleURLTypes`.
    public var urlTypes: [URLTypeDeclaration]
    /// `CFBundleDocumentTypes`.
    public var documentTypes: [DocumentTypeDeclaration]
    /// `UTExportedTypeDeclarations`: types this app defines.
    public var exportedTypes: [TypeDeclaration]
    /// `UTImportedTypeDeclarations`: types defined elsewhere that this app describes for itself.
    public var importedTypes: [TypeDeclaration]
    /// `CourierLaunchArguments`; nil when Courier cannot launch the app (it checks in by itself).
    public var launchCommand: LaunchCommand?
    /// `LSApplicationQueriesSchemes`: the schemes this app may ask about with canOpenURL. Never claims.
    public var queriesSchemes: [String]
    /// `CourierURLFormat`, kept as the raw property-list value; see ``ManifestURLFormat``.
    public var urlFormat: PropertyListValue?
    /// `CourierDBusActivatable`: a foreign desktop app (any GApplication with `HANDLES_OPEN`) that
    /// the session bus starts under its bundle identifier and that receives URLs through
    /// `org.freedesktop.Application.Open` instead of checking in (see docs/desktop.md).
    public var dbusActivatable = false
    /// `CourierTerminatesWhenIdle`: false keeps the app running when idle (the idle-timeout and
    /// memory-pressure policies skip it), like an iOS background mode.
    public var terminatesWhenIdle = true
    /// `CourierKeepAlive`: relaunch the app when it ends without being asked to (launchd's
    /// `KeepAlive`), with the crash-loop back-off; the idle and memory-pressure policies skip it.
    public var keepAlive = false
    /// `CourierRunAtLoad`: launch the app when the broker starts (launchd's `RunAtLoad`); the
    /// idle and memory-pressure policies skip it.
    public var runAtLoad = false
    /// `CourierAllowedDropCallers`: who may drop files on this app (`DropFiles`, `OpenFiles`,
    /// `courier drop`, `courier open FILE`); default anyone. See ``CallerRule``.
    public var dropCallers = CallerRule.anyone
    /// `CourierShareActivities`: activities this app offers in share sheets (docs/share.md).
    public var shareActivities: [ShareActivityDeclaration] = []
    /// `UILaunchImageFile` and the launch images found beside the manifest; nil when the key's
    /// value was refused (then no image is shown, not even `Default`'s).
    public var launchImages: LaunchImages? = LaunchImages()
    /// The absolute path of the file this manifest was read from (empty when built in memory).
    public var path: String

    public init(
        bundleIdentifier: BundleIdentifier, name: String? = nil, urlTypes: [URLTypeDeclaration] = [],
        documentTypes: [DocumentTypeDeclaration] = [], exportedTypes: [TypeDeclaration] = [],
        importedTypes: [TypeDeclaration] = [], launchCommand: LaunchCommand? = nil,
        queriesSchemes: [String] = [], urlFormat: PropertyListValue? = nil, path: String = ""
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.name = name ?? bundleIdentifier.rawValue
        self.urlTypes = urlTypes
        self.documentTypes = documentTypes
        self.exportedTypes = exportedTypes
        self.importedTypes = importedTypes
        self.launchCommand = launchCommand
        self.queriesSchemes = queriesSchemes
        self.urlFormat = urlFormat
        self.path = path
    }

    /// Every scheme this app claims, lowercased, in declaration order, without repeats.
    public var schemes: [String] {
        var seen = Set<String>()
        var out: [String] = []
        for type in urlTypes {
            for scheme in type.schemes where seen.insert(scheme).inserted { out.append(scheme) }
        }
        return out
    }

    /// The strongest claim this app makes on `scheme` (lowercased), if any.
    public func urlType(forScheme scheme: String) -> URLTypeDeclaration? {
        var best: URLTypeDeclaration?
        for type in urlTypes where type.schemes.contains(scheme) {
            if best == nil || type.rank > best!.rank { best = type }
        }
        return best
    }

    /// Who may open URLs of `scheme` (lowercased) in this app: the `CourierAllowedCallers` of the
    /// entry that claims it (a scheme is claimed by one entry: a repeat is dropped), else anyone.
    public func callers(forScheme scheme: String) -> CallerRule {
        urlTypes.first { $0.schemes.contains(scheme) }?.allowedCallers ?? .anyone
    }

    /// The manifest with schemes lowercased (the parser already does this; manifests built in
    /// memory may not have).
    public func normalized() -> Manifest {
        var copy = self
        for i in copy.urlTypes.indices { copy.urlTypes[i].schemes = copy.urlTypes[i].schemes.map { $0.lowercased() } }
        copy.queriesSchemes = copy.queriesSchemes.map { $0.lowercased() }
        return copy
    }

    /// Whether Courier can start this app itself.
    public var canLaunch: Bool { launchCommand != nil || dbusActivatable }

    /// Whether this app may ask about `scheme` with canOpenURL (`LSApplicationQueriesSchemes`).
    public func mayQuery(scheme: String) -> Bool {
        queriesSchemes.contains(scheme.lowercased())
    }
}
