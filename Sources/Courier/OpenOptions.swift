import CourierProtocol

/// What a caller may say about an `openURL` (the `a{sv}` options of `Broker1.OpenURL`).
/// There is deliberately no "source application": the broker derives it from bus credentials.
public struct OpenOptions: Sendable, Hashable {
    /// What is sent to the broker: the options as the protocol encodes them (`OpenRequestOptions`).
    var request: OpenRequestOptions

    /// Force this app instead of the scheme's owner (`bundle-id`).
    public var bundleID: String? { get { request.bundleID } set { request.bundleID = newValue } }
    /// Extra data for the app (`annotation`, passed through as a variant).
    public var annotation: CourierValue? { get { request.annotation.map(CourierValue.init) } set { request.annotation = newValue?.dbusValue } }
    /// Ask the app not to raise itself (`background`).
    public var background: Bool { get { request.background } set { request.background = newValue } }
    /// A Wayland/X11 activation token so the app may raise its window (`activation-token`).
    public var activationToken: String? { get { request.activationToken } set { request.activationToken = newValue } }
    /// The caller's deadline (`timeout-ms`), counted from when the broker receives the request: past
    /// it the caller is answered `Unanswered` (delivered, the app may still act on it) or
    /// `Withdrawn` (never delivered); neither counts as the app's failure.
    public var timeout: Duration? { get { request.timeout } set { request.timeout = newValue } }
    /// Validate and resolve only; launch and deliver nothing (`dry-run`).
    public var dryRun: Bool { get { request.dryRun } set { request.dryRun = newValue } }
    /// This open relays one from a caller the sender cannot identify (`relayed`: what an app sends
    /// for an `org.freedesktop.Application.Open`). The broker then treats it as from no Courier
    /// app, for the target's caller rules and its `sourceApplication`.
    public var relayed: Bool { get { request.relayed } set { request.relayed = newValue } }
    /// Arguments for the app (`arguments`): after its launch command when this open launches it,
    /// else handed to the running instance (`ApplicationDelegate.handleArguments`), which says
    /// whether it took them (`arguments-accepted` in the reply).
    public var arguments: [String]? { get { request.arguments } set { request.arguments = newValue } }
    /// When this open launches the app, skip the state it preserved (`fresh`).
    public var fresh: Bool { get { request.fresh } set { request.fresh = newValue } }

    public init(bundleID: String? = nil, annotation: CourierValue? = nil, background: Bool = false, activationToken: String? = nil, timeout: Duration? = nil, dryRun: Bool = false, relayed: Bool = false) {
        request = OpenRequestOptions(bundleID: bundleID, annotation: annotation?.dbusValue, background: background, activationToken: activationToken,
                                     timeout: timeout, dryRun: dryRun, relayed: relayed)
    }
}

/// The broker's answer to an `openURL`: the app's own YES/NO, which app, and its reply.
public struct OpenResult: Sendable, Hashable {
    public var handled: Bool
    public var bundleID: String
    /// What the app chose to return (x-callback-url style results).
    public var reply: [String: CourierValue]

    public init(handled: Bool, bundleID: String, reply: [String: CourierValue]) {
        self.handled = handled
        self.bundleID = bundleID
        self.reply = reply
    }
}
