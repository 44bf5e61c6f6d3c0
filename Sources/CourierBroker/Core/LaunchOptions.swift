/// What `CheckIn` returns to a freshly launched app: the request it was launched for
/// (UIApplicationLaunchOptionsURLKey and friends), so willFinishLaunching/didFinishLaunching can
/// look at the URL and decline it before `open` is called.
public struct LaunchOptions: Sendable {
    /// The URL the app was launched to open; `nil` when it was started by other means.
    public var url: String?
    /// The bundle id of the app that asked, "" when unknown.
    public var sourceApplication: String
    /// Identifies the launch request; the delivery of that same request carries it too, so the app
    /// library can answer it `handled = false` without calling `open` when launching declined it.
    public var requestID: UInt64?
    /// The launch request's app options (annotation, activation token, background).
    public var appOptions: [String: any Sendable]
    /// The state the app preserved before it was last terminated, as it wrote it (the app library
    /// decodes it and asks the delegate whether to restore it); nil when there is none.
    public var restorationArchive: [UInt8]?

    public init(url: String? = nil, sourceApplication: String = "", requestID: UInt64? = nil, appOptions: [String: any Sendable] = [:]) {
        self.url = url
        self.sourceApplication = sourceApplication
        self.requestID = requestID
        self.appOptions = appOptions
    }

    /// Options for an app that was not launched by Courier (started by hand, bus activation).
    public static let none = LaunchOptions()
}
