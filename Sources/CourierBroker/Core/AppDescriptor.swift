/// What the broker core needs to know about one registered app, independent of how manifests are
/// stored: its identity, how to start it, how long it may take, and which schemes it may query.
public struct AppDescriptor: Sendable, Hashable {
    /// Reverse-DNS bundle identifier; also the app's bus name.
    public var bundleID: String
    /// The command to launch the app, executed directly (no shell); `argv[0]` is a path containing
    /// `/` or a bare name looked up on `PATH`. `nil` when the app is started by other means and
    /// only checks in (the broker then cannot launch it).
    public var launchArguments: [String]?
    /// How long a launched process has to call `CheckIn` before it is terminated.
    public var launchTimeout: Duration
    /// `LSApplicationQueriesSchemes`: the schemes this app may ask about with `CanOpenURL`.
    public var queriesSchemes: Set<String>
    /// A foreign desktop app (`CourierDBusActivatable`): the bus starts it under `bundleID`, it
    /// never checks in, and URLs go through `org.freedesktop.Application.Open`.
    public var dbusActivatable: Bool
    /// Whether the idle-timeout and memory-pressure policies may terminate the app: false when its
    /// manifest says `CourierTerminatesWhenIdle` = false (like a background mode). `courier quit`
    /// still works.
    public var terminatesWhenIdle: Bool
    /// Who may call the app, per scheme and for drops (`CourierAllowedCallers`,
    /// `CourierAllowedDropCallers`): checked before anything is launched.
    public var callers: CallerPolicy
    /// `CourierKeepAlive`: relaunched when it ends without being asked to (launchd's `KeepAlive`),
    /// with the crash-loop back-off; exempt from the idle and memory-pressure policies.
    public var keepAlive: Bool
    /// `CourierRunAtLoad`: launched when the broker starts (launchd's `RunAtLoad`); exempt from
    /// the idle and memory-pressure policies.
    public var runAtLoad: Bool
    /// The name the app shows (`CFBundleDisplayName`, …), for what the broker shows about it.
    public var name: String
    /// The checked launch images by lowercased scheme (`UILaunchImageFile`, docs/manifest.md).
    public var launchImages: [String: String]

    public init(
        bundleID: String,
        launchArguments: [String]?,
        launchTimeout: Duration = .seconds(10),
        queriesSchemes: Set<String> = [],
        dbusActivatable: Bool = false,
        terminatesWhenIdle: Bool = true,
        callers: CallerPolicy = CallerPolicy(),
        keepAlive: Bool = false,
        runAtLoad: Bool = false,
        name: String? = nil,
        launchImages: [String: String] = [:]
    ) {
        self.keepAlive = keepAlive
        self.runAtLoad = runAtLoad
        self.name = name ?? bundleID
        self.launchImages = launchImages
        self.callers = callers
        self.terminatesWhenIdle = terminatesWhenIdle
        self.dbusActivatable = dbusActivatable
        self.bundleID = bundleID
        self.launchArguments = launchArguments
        self.launchTimeout = launchTimeout
        self.queriesSchemes = queriesSchemes
    }
}
