public import DBus

/// One `OpenURL` as the broker core sees it, after the adapter validated and decoded the message.
///
/// What the caller said (`options`) and what the broker knows (`facts`) are separate types: the
/// adapter fills `facts` from bus credentials and its own drops, never from the caller's options.
/// The core passes `options` to the app untouched and does not interpret them.
public struct OpenRequest: Sendable {
    public var url: String
    /// Force this target instead of the scheme's owner (`bundle-id` option).
    public var bundleID: String?
    /// Who called, for logs only (a unique bus name, a pid).
    public var caller: String
    public var options: CallerOptions
    public var facts: BrokerFacts
    /// When set, the dispatcher derives `facts.sourceApplication` from it (replacing the field):
    /// the app that checked in from this unique name, or that Courier launched with this pid.
    public var callerIdentity: CallerIdentity?
    /// The caller waits for the answer (false for a call flagged "no reply expected"): only then
    /// is its request withdrawn when it leaves the bus before the request was delivered.
    public var callerWaits = true

    public init(url: String, bundleID: String? = nil, caller: String = "", options: CallerOptions = .init(), facts: BrokerFacts = .init()) {
        self.url = url
        self.bundleID = bundleID
        self.caller = caller
        self.options = options
        self.facts = facts
    }

    /// The bundle id of the calling app (`facts`), or "" when the caller is not an app Courier knows.
    public var sourceApplication: String {
        get { facts.sourceApplication }
        set { facts.sourceApplication = newValue }
    }

    /// An activation token for the launched process's environment (`XDG_ACTIVATION_TOKEN`).
    public var activationToken: String? { options.activationToken }

    /// How long the app may take to answer the delivery; `nil` uses the deliverer's default.
    public var deliveryTimeout: Duration? { options.deliveryTimeout }
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
    public var reply: [String: DBusValue]
    /// Whether this request caused a launch (for logs and tests).
    public var launched: Bool

    public init(handled: Bool, bundleID: String, reply: [String: DBusValue] = [:], launched: Bool = false) {
        self.handled = handled
        self.bundleID = bundleID
        self.reply = reply
        self.launched = launched
    }
}
