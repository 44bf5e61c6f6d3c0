import CourierNames
import DBus
import CourierProtocol

/// The `a{sv}` options of `OpenURL` and `DropFiles`, decoded once, each known key by its declared
/// D-Bus type (`docs/dbus-api.md`): routing (`bundle-id`, `dry-run`, `progress-token`) for the
/// broker, `wait` for `DropFiles`/`OpenFiles`, and `CallerOptions` for the app.
///
/// A known key with a value of another type is refused with `InvalidArguments` naming the key —
/// never silently dropped. Unknown keys are ignored (a newer client may send more). The keys the
/// broker itself sets for the app (`brokerKeys`: `source-application`, `inbox`, `request-id`, …)
/// are ignored when a caller sends them: there is no field to put them in, and the app gets the
/// broker's own values (`BrokerFacts`) under those keys.
struct RequestOptions: Sendable {
    /// `bundle-id` (s): the target instead of the scheme's owner; nil when absent or empty.
    var bundleID: String?
    /// `dry-run` (b): validate and resolve only.
    var dryRun = false
    /// `progress-token` (s): `DropProgress` signals for this drop.
    var progressToken: String?
    /// `wait` (b, `DropFiles`/`OpenFiles`): reply after the apps answered (nil: the default, true).
    var wait: Bool?
    /// `staged` (as, `DropFiles`/`OpenFiles`): batches from `StageFiles` that come first, in order.
    var staged: [String] = []
    var caller = CallerOptions()

    /// What only the broker says to an app; a caller's value for these is never forwarded.
    static let brokerKeys: Set<String> = [
        CourierKey.sourceApplication.name, CourierKey.sourceApplicationCamelCase.name, CourierKey.inbox.name,
        CourierKey.requestID.name, CourierKey.launch.name,
    ]

    init(_ options: [String: DBusValue]) throws(CourierError) {
        bundleID = try options.decode(CourierKey.bundleID).flatMap { $0.isEmpty ? nil : $0 }
        dryRun = try options.decode(CourierKey.dryRun) ?? false
        progressToken = try options.decode(CourierKey.progressToken).flatMap { $0.isEmpty ? nil : $0 }
        wait = try options.decode(CourierKey.wait)
        staged = try options.decode(CourierKey.staged) ?? []
        caller.annotation = try options.decode(CourierKey.annotation)
        // Refused as soon as the call is decoded, before anything is queued, launched or copied again.
        if let size = caller.annotation?.byteCount, size > CourierLimits.maximumAnnotationBytes {
            throw CourierError(.limitsExceeded, CourierLimits.annotationTooLarge(size))
        }
        caller.background = try options.decode(CourierKey.background) ?? false
        let startupID = try options.decode(CourierKey.desktopStartupID)
        caller.activationToken = try options.decode(CourierKey.activationToken) ?? startupID
        caller.deliveryTimeout = try options.decode(CourierKey.timeoutMS).map { .milliseconds(Int64($0)) }
        caller.relayed = try options.decode(CourierKey.relayed) ?? false
        caller.shareActivity = try options.decode(CourierKey.shareActivity).flatMap { $0.isEmpty ? nil : $0 }
        caller.arguments = try options.decode(CourierKey.arguments)
        caller.fresh = try options.decode(CourierKey.fresh) ?? false
    }
}

extension LaunchOptions {
    /// The `a{sv}` `CheckIn` returns: `url`, `source-application`, `request-id`, the launch
    /// request's caller options under the keys deliveries use, and `restoration-archive`.
    var dbusDictionary: [String: DBusValue] {
        var dictionary = options.dbusDictionary(facts: facts)
        if let url { dictionary[CourierKey.url] = url }
        dictionary[CourierKey.sourceApplication] = facts.sourceApplication
        if let requestID { dictionary[CourierKey.requestID] = requestID }
        if let annotation = options.annotation { dictionary[CourierKey.annotation] = annotation }
        if let restorationArchive { dictionary[CourierKey.restorationArchive] = restorationArchive }
        if launched { dictionary[CourierKey.launch] = true }
        return dictionary
    }
}

extension CallerOptions {
    /// The options an app receives with a request (`org.courier.Application1.OpenURL`'s `a{sv}`):
    /// the caller's `background` and activation token, and `inbox` only when the broker dropped
    /// the file. The annotation travels as its own argument.
    func dbusDictionary(facts: BrokerFacts) -> [String: DBusValue] {
        var dictionary: [String: DBusValue] = [:]
        if background { dictionary[CourierKey.background] = true }
        if let activationToken {
            dictionary[CourierKey.activationToken] = activationToken
            dictionary[CourierKey.desktopStartupID] = activationToken
        }
        if facts.droppedFile { dictionary[CourierKey.inbox] = true }
        if let shareActivity { dictionary[CourierKey.shareActivity] = shareActivity }
        if let arguments { dictionary[CourierKey.arguments] = arguments }
        return dictionary
    }
}
