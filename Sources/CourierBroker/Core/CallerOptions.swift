public import DBus

/// What a caller said about one request — the `a{sv}` options of `OpenURL` and `DropFiles` as
/// the D-Bus adapter decoded them (`CallerOptions(dbus:)`) — and all that the broker forwards
/// from the caller to the app.
///
/// It has no field for anything the broker vouches for: who the caller is, whether a file was
/// placed in the app's Inbox by a drop. Those are `BrokerFacts`, a separate type only the broker
/// fills, so no option a caller passes, whatever its key, can carry the broker's authority.
public struct CallerOptions: Sendable, Hashable {
    /// Extra data for the app (`annotation`), passed through as the caller sent it.
    public var annotation: DBusValue?
    /// Ask the app not to raise itself (`background`).
    public var background: Bool
    /// A Wayland/X11 activation token (`activation-token`, or `desktop-startup-id`), for the
    /// launched app's environment and the app itself.
    public var activationToken: String?
    /// How long the app may take to answer (`timeout-ms`); `nil` for the deliverer's default.
    public var deliveryTimeout: Duration?
    /// The caller relays an open from someone it cannot identify (`relayed`: an app passing on an
    /// `org.freedesktop.Application.Open`). The broker then treats the request as from no Courier
    /// app — for the app's caller rules and as the `sourceApplication` it is told —, so the relay
    /// is no way around a rule. Only ever lowers the caller's standing, so it may come from its word.
    public var relayed: Bool
    /// The receiving app's own share activity the person chose (`share-activity`, docs/share.md):
    /// the broker checks that the app declares it, and lets the drop in by its types.
    public var shareActivity: String?
    /// Arguments for the app (`arguments`, `courier open --args`): appended to its launch command
    /// when this request launches it, else handed to the running instance with the URL.
    public var arguments: [String]?
    /// When this request launches the app, do not hand it the state it preserved (`fresh`).
    public var fresh = false

    public init(annotation: DBusValue? = nil, background: Bool = false, activationToken: String? = nil, deliveryTimeout: Duration? = nil, relayed: Bool = false) {
        self.relayed = relayed
        self.annotation = annotation
        self.background = background
        self.activationToken = activationToken
        self.deliveryTimeout = deliveryTimeout
    }
}

/// What the broker itself vouches for about a request: never read from a caller's options.
public struct BrokerFacts: Sendable, Hashable {
    /// The bundle id of the calling app, derived from its bus credentials (the unique name that
    /// checked in, or a pid Courier launched); "" when the caller is not an app Courier knows.
    public var sourceApplication: String
    /// The URL is the `file://` URL of a file the broker placed in the app's `Documents/Inbox`
    /// for a `DropFiles` (the app sees `inbox=true`). A caller's `OpenURL` never sets it.
    public var droppedFile: Bool

    public init(sourceApplication: String = "", droppedFile: Bool = false) {
        self.sourceApplication = sourceApplication
        self.droppedFile = droppedFile
    }
}
