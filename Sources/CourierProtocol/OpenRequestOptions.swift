public import DBus
public import CourierNames

/// The `a{sv}` options a caller sends with `Broker1.OpenURL` (and `OpenFiles`, which takes the
/// same), encoded in one place for the app library's `OpenOptions` and the tools alike. There is
/// deliberately no "source application": the broker derives it from bus credentials.
public struct OpenRequestOptions: Sendable, Hashable {
    /// `CourierKey.bundleID`: this app instead of the scheme's owner.
    public var bundleID: String?
    /// `CourierKey.annotation`: any value handed to the app (at most `CourierLimits.maximumAnnotationBytes`).
    public var annotation: DBusValue?
    /// `CourierKey.background`.
    public var background: Bool
    /// `CourierKey.activationToken`.
    public var activationToken: String?
    /// `CourierKey.timeoutMS`: the caller's deadline, sent in whole milliseconds, clamped to `UInt32`.
    public var timeout: Duration?
    /// `CourierKey.dryRun`.
    public var dryRun: Bool
    /// `CourierKey.relayed`.
    public var relayed: Bool
    /// `CourierKey.arguments`.
    public var arguments: [String]?
    /// `CourierKey.fresh`.
    public var fresh: Bool

    public init(bundleID: String? = nil, annotation: DBusValue? = nil, background: Bool = false, activationToken: String? = nil, timeout: Duration? = nil,
                dryRun: Bool = false, relayed: Bool = false, arguments: [String]? = nil, fresh: Bool = false) {
        self.bundleID = bundleID
        self.annotation = annotation
        self.background = background
        self.activationToken = activationToken
        self.timeout = timeout
        self.dryRun = dryRun
        self.relayed = relayed
        self.arguments = arguments
        self.fresh = fresh
    }

    /// The `a{sv}` sent to the broker: only what was set.
    public var dictionary: [String: DBusValue] {
        var options: [String: DBusValue] = [:]
        options[CourierKey.bundleID] = bundleID
        options[CourierKey.annotation] = annotation
        if background { options[CourierKey.background] = true }
        options[CourierKey.activationToken] = activationToken
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            options[CourierKey.timeoutMS] = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        }
        if dryRun { options[CourierKey.dryRun] = true }
        if relayed { options[CourierKey.relayed] = true }
        options[CourierKey.arguments] = arguments
        if fresh { options[CourierKey.fresh] = true }
        return options
    }

    /// `LimitsExceeded` for an annotation the broker would refuse anyway: checked before sending,
    /// so it is neither sent nor copied again.
    public func checkAnnotationSize() throws(CourierError) {
        if let size = annotation?.byteCount, size > CourierLimits.maximumAnnotationBytes {
            throw CourierError(.limitsExceeded, CourierLimits.annotationTooLarge(size))
        }
    }

    /// `Broker1.OpenURL`'s arguments for `url`.
    public func body(url: String) -> [DBusValue] { [.string(url), .vardict(dictionary)] }
}

/// The `a{sv}` options of `Broker1.Launch` and `Restart`.
public struct LaunchRequestOptions: Sendable, Hashable {
    /// `CourierKey.arguments`: after the app's launch command.
    public var arguments: [String]
    /// `CourierKey.fresh`: skip the state the app preserved.
    public var fresh: Bool

    public init(arguments: [String] = [], fresh: Bool = false) {
        self.arguments = arguments
        self.fresh = fresh
    }

    public var dictionary: [String: DBusValue] {
        var options: [String: DBusValue] = [:]
        if !arguments.isEmpty { options[CourierKey.arguments] = arguments }
        if fresh { options[CourierKey.fresh] = true }
        return options
    }
}
