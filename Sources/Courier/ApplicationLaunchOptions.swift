import DBus
import CourierProtocol

/// What `CheckIn` told the app about its launch (UIKit's `launchOptions`): the URL it was launched
/// to open and who asked, or nothing when it was started by other means.
public struct ApplicationLaunchOptions: Sendable, Hashable {
    /// `UIApplicationLaunchOptionsURLKey`.
    public var url: String?
    /// `UIApplicationLaunchOptionsSourceApplicationKey`: "" when the caller is not a known app.
    public var sourceApplication: String
    public var annotation: CourierValue?
    public var activationToken: String?
    public var background: Bool
    /// `url` is a file the broker dropped into this app's `Documents/Inbox` (`DropFiles`): the
    /// broker's word, never a caller's (see `OpenURLOptions.inbox`).
    public var inbox: Bool
    /// The broker launched the app: for `url`, or, when `url` is nil, for nothing in particular
    /// (`courier launch`, `restart`, keep-alive, run-at-load). False when it was started by other
    /// means (by hand, from a desktop entry) and only checked in.
    public var launchedByBroker = false
    /// Ties the launch to the delivery of the same request.
    var requestID: UInt64?
    /// The preserved state the broker handed back (`restoration-archive`), still encoded.
    var restorationArchive: [UInt8]?

    public init(url: String? = nil, sourceApplication: String = "", annotation: CourierValue? = nil, activationToken: String? = nil, background: Bool = false, inbox: Bool = false) {
        self.url = url
        self.sourceApplication = sourceApplication
        self.annotation = annotation
        self.activationToken = activationToken
        self.background = background
        self.inbox = inbox
    }

    /// Decodes the `a{sv}` `CheckIn` returns.
    init(dictionary: [String: DBusValue]) {
        self.init(
            url: dictionary[CourierKey.url],
            sourceApplication: dictionary[CourierKey.sourceApplication] ?? "",
            annotation: dictionary[CourierKey.annotation].map(CourierValue.init),
            activationToken: dictionary[CourierKey.activationToken],
            background: dictionary[CourierKey.background] ?? false,
            inbox: dictionary[CourierKey.inbox] ?? false
        )
        requestID = dictionary[CourierKey.requestID]
        launchedByBroker = dictionary[CourierKey.launch] ?? false
        restorationArchive = dictionary[CourierKey.restorationArchive]
    }
}

/// What comes with a URL to open (`application:openURL:sourceApplication:annotation:`).
public struct OpenURLOptions: Sendable, Hashable {
    /// The bundle id of the app that asked, as the broker derived it from bus credentials; "" when
    /// the caller is not a known app (the shell, a desktop tool).
    public var sourceApplication: String
    public var annotation: CourierValue?
    public var activationToken: String?
    /// The caller asked the app not to come to the foreground.
    public var background: Bool
    /// The URL is a file the broker dropped into this app's `Documents/Inbox` (`DropFiles`). Only
    /// the broker sets it (callers cannot: it is a broker fact, and this library accepts `OpenURL`
    /// from the broker only); trust a `file:` URL as a drop only when it is set, and only for a
    /// path inside the app's own Inbox (`AppInbox.contains`).
    public var inbox: Bool
    /// Every option the broker passed, including ones this library does not know.
    public var all: [String: CourierValue]

    public init(sourceApplication: String = "", annotation: CourierValue? = nil, activationToken: String? = nil, background: Bool = false, inbox: Bool = false, all: [String: CourierValue] = [:]) {
        self.sourceApplication = sourceApplication
        self.annotation = annotation
        self.activationToken = activationToken
        self.background = background
        self.inbox = inbox
        self.all = all
    }
}

/// An app's answer to a URL: YES/NO, plus an optional reply dictionary returned to the caller
/// (x-callback-url style results without a URL round trip). A Boolean literal is a result.
public struct OpenURLResult: Sendable, Hashable, ExpressibleByBooleanLiteral {
    public var handled: Bool
    public var reply: [String: CourierValue]

    public init(handled: Bool, reply: [String: CourierValue] = [:]) {
        self.handled = handled
        self.reply = reply
    }

    public init(booleanLiteral value: Bool) {
        self.init(handled: value)
    }
}
