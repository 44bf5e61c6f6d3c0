import CourierNames
import DBus

/// The `a{sv}` options of `OpenURL` and `DropFiles`, decoded once, each known key by its declared
/// D-Bus type (`docs/dbus-api.md`): routing (`bundle-id`, `dry-run`, `progress-token`) for the
/// broker, `wait` for `OpenFiles`, and `CallerOptions` for the app.
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
    /// `wait` (b, `OpenFiles`): reply after the apps answered (nil: the default, true).
    var wait: Bool?
    /// `staged` (as, `DropFiles`/`OpenFiles`): batches from `StageFiles` that come first, in order.
    var staged: [String] = []
    var caller = CallerOptions()

    /// What only the broker says to an app; a caller's value for these is never forwarded.
    static let brokerKeys: Set<String> = ["source-application", "sourceApplication", "inbox", "request-id", "launch"]

    init(_ options: [String: DBusValue]) throws(CourierError) {
        bundleID = try Self.value(String.self, "bundle-id", in: options).flatMap { $0.isEmpty ? nil : $0 }
        dryRun = try Self.value(Bool.self, "dry-run", in: options) ?? false
        progressToken = try Self.value(String.self, "progress-token", in: options).flatMap { $0.isEmpty ? nil : $0 }
        wait = try Self.value(Bool.self, "wait", in: options)
        staged = try Self.value([String].self, "staged", in: options) ?? []
        caller.annotation = options["annotation"]?.unwrapped
        // Refused as soon as the call is decoded, before anything is queued, launched or copied again.
        if let size = caller.annotation?.byteCount, size > CourierLimits.maximumAnnotationBytes {
            throw CourierError(.limitsExceeded, CourierLimits.annotationTooLarge(size))
        }
        caller.background = try Self.value(Bool.self, "background", in: options) ?? false
        let startupID = try Self.value(String.self, "desktop-startup-id", in: options)
        caller.activationToken = try Self.value(String.self, "activation-token", in: options) ?? startupID
        caller.deliveryTimeout = try Self.value(UInt32.self, "timeout-ms", in: options).map { .milliseconds(Int64($0)) }
        caller.relayed = try Self.value(Bool.self, "relayed", in: options) ?? false
    }

    private static func value<T: DBusRepresentable>(_ type: T.Type, _ key: String, in options: [String: DBusValue]) throws(CourierError) -> T? {
        guard let value = options[key]?.unwrapped else { return nil }
        do {
            return try T(dbusValue: value)
        } catch {
            throw CourierError(.invalidArguments, "the option '\(key)' must be of D-Bus type '\(T.dbusType)', not '\(value.type)'")
        }
    }
}

extension LaunchOptions {
    /// The `a{sv}` `CheckIn` returns: `url`, `source-application`, `request-id`, the launch
    /// request's caller options under the keys deliveries use, and `restoration-archive`.
    var dbusDictionary: [String: DBusValue] {
        var dictionary = options.dbusDictionary(facts: facts)
        if let url { dictionary["url"] = .string(url) }
        dictionary["source-application"] = .string(facts.sourceApplication)
        if let requestID { dictionary["request-id"] = .uint64(requestID) }
        if let annotation = options.annotation { dictionary["annotation"] = annotation }
        if let restorationArchive { dictionary["restoration-archive"] = .bytes(restorationArchive) }
        return dictionary
    }
}

extension CallerOptions {
    /// The options an app receives with a request (`org.courier.Application1.OpenURL`'s `a{sv}`):
    /// the caller's `background` and activation token, and `inbox` only when the broker dropped
    /// the file. The annotation travels as its own argument.
    func dbusDictionary(facts: BrokerFacts) -> [String: DBusValue] {
        var dictionary: [String: DBusValue] = [:]
        if background { dictionary["background"] = .boolean(true) }
        if let activationToken {
            dictionary["activation-token"] = .string(activationToken)
            dictionary["desktop-startup-id"] = .string(activationToken)
        }
        if facts.droppedFile { dictionary["inbox"] = .boolean(true) }
        return dictionary
    }
}
