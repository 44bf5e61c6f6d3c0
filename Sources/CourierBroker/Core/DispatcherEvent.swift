/// Life-cycle events of the dispatcher, for observers that measure or trace (the benchmark
/// harness, tests). Called synchronously, outside the dispatcher's lock, on the thread performing the
/// transition's effects: keep observers cheap.
public enum DispatcherEvent: Sendable {
    /// `posix_spawn` is about to run for `bundleID`, to deliver `url` (the first request queued;
    /// nil for a launch without a URL: `courier launch`, keep-alive, run-at-load).
    case launching(bundleID: String, url: String?)
    /// The app called `CheckIn`.
    case checkedIn(bundleID: String)
    /// A request is being handed to the app (the delivery call starts).
    case delivering(bundleID: String)
    /// The app answered (or failed) the delivery.
    case delivered(bundleID: String)
    /// The app's public state changed (`ApplicationStateChanged` on the bus).
    case stateChanged(bundleID: String, state: AppState)
}
