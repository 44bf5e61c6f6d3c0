/// Life-cycle events of the dispatcher, for observers that measure or trace (the benchmark
/// harness, tests). Called synchronously, `launching` under the dispatcher's lock: keep observers
/// cheap and never call the dispatcher from one.
public enum DispatcherEvent: Sendable {
    /// `posix_spawn` is about to run for `bundleID`.
    case launching(bundleID: String)
    /// The app called `CheckIn`.
    case checkedIn(bundleID: String)
    /// A request is being handed to the app (the delivery call starts).
    case delivering(bundleID: String)
    /// The app answered (or failed) the delivery.
    case delivered(bundleID: String)
}
