/// One `OpenURL` as the broker core sees it, after the adapter validated and decoded the message.
///
/// `sourceApplication` is what the adapter derived from the caller's bus credentials; it never
/// comes from the caller's options. `appOptions` are passed to the app untouched (annotation,
/// activation token, background flag): the core does not interpret them.
public struct OpenRequest: Sendable {
    public var url: String
    /// Force this target instead of the scheme's owner (`bundle-id` option).
    public var bundleID: String?
    /// The bundle id of the calling app, or "" when the caller is not an app Courier knows.
    public var sourceApplication: String
    /// Who called, for logs only (a unique bus name, a pid).
    public var caller: String
    /// Options forwarded to the app as they came (D-Bus variants in the adapter).
    public var appOptions: [String: any Sendable]
    /// An activation token for the launched process's environment (`XDG_ACTIVATION_TOKEN`).
    public var activationToken: String?
    /// How long the app may take to answer the delivery; `nil` uses the deliverer's default.
    public var deliveryTimeout: Duration?
    /// When set, the dispatcher derives `sourceApplication` from it (replacing the field): the
    /// app that checked in from this unique name, or that Courier launched with this pid.
    public var callerIdentity: CallerIdentity?

    public init(
        url: String,
        bundleID: String? = nil,
        sourceApplication: String = "",
        caller: String = "",
        appOptions: [String: any Sendable] = [:],
        activationToken: String? = nil,
        deliveryTimeout: Duration? = nil
    ) {
        self.url = url
        self.bundleID = bundleID
        self.sourceApplication = sourceApplication
        self.caller = caller
        self.appOptions = appOptions
        self.activationToken = activationToken
        self.deliveryTimeout = deliveryTimeout
    }
}

/// What the bus vouches for about a caller: its unique name and, when known, its pid.
public struct CallerIdentity: Sendable, Hashable {
    public var uniqueName: String
    public var pid: Int32?

    public init(uniqueName: String, pid: Int32?) {
        self.uniqueName = uniqueName
        self.pid = pid
    }
}

/// The answer to an `OpenURL`: the app's own YES/NO, who answered, and what it chose to return.
public struct OpenOutcome: Sendable {
    public var handled: Bool
    public var bundleID: String
    /// The app's reply dictionary (x-callback-url style results), passed through untouched.
    public var reply: [String: any Sendable]
    /// Whether this request caused a launch (for logs and tests).
    public var launched: Bool

    public init(handled: Bool, bundleID: String, reply: [String: any Sendable] = [:], launched: Bool = false) {
        self.handled = handled
        self.bundleID = bundleID
        self.reply = reply
        self.launched = launched
    }
}
