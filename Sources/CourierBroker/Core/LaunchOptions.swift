/// What `CheckIn` returns to a freshly launched app: the request it was launched for
/// (UIApplicationLaunchOptionsURLKey and friends), so willFinishLaunching/didFinishLaunching can
/// look at the URL and decline it before `open` is called.
public struct LaunchOptions: Sendable {
    /// The URL the app was launched to open; `nil` when it was started by other means.
    public var url: String?
    /// Identifies the launch request; the delivery of that same request carries it too, so the app
    /// library can answer it `handled = false` without calling `open` when launching declined it.
    public var requestID: UInt64?
    /// What the launch request's caller said (annotation, activation token, background).
    public var options: CallerOptions
    /// What the broker vouches for about the launch request (source application, a dropped file).
    public var facts: BrokerFacts
    /// The state the app preserved before it was last terminated, as it wrote it (the app library
    /// decodes it and asks the delegate whether to restore it); nil when there is none.
    public var restorationArchive: [UInt8]?
    /// The broker launched the app (for this request, or for nothing in particular when `url` is
    /// nil: `courier launch`, keep-alive); false when the app was started by other means.
    public var launched = false
    /// Launched without the state it preserved (`--fresh`): `restorationArchive` stays nil.
    public var fresh = false

    public init(url: String? = nil, requestID: UInt64? = nil, options: CallerOptions = .init(), facts: BrokerFacts = .init()) {
        self.url = url
        self.requestID = requestID
        self.options = options
        self.facts = facts
    }

    /// The bundle id of the app that asked, "" when unknown.
    public var sourceApplication: String { facts.sourceApplication }

    /// Options for an app that was not launched by Courier (started by hand, bus activation).
    public static let none = LaunchOptions()
}
