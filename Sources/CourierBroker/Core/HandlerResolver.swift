public import CourierNames

/// Turns a URL into the app that should open it: the routing edge of the broker core.
///
/// The D-Bus adapter implements it over the manifest registry and the URL parser; tests implement
/// it with a fixed table. It must be cheap and synchronous: it is called once per request, in order.
public protocol HandlerResolver: Sendable {
    /// Validates `url` and returns the app that owns it, or the app named by `bundleID` when given.
    /// Throws `InvalidURL` (nothing is launched) or `NoHandler`.
    func resolve(url: String, bundleID: String?) throws(CourierError) -> AppDescriptor

    /// The registered app with this bundle id, if any (used by `CheckIn`).
    func descriptor(bundleID: String) -> AppDescriptor?
}
