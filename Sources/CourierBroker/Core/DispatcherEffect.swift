import Logging

/// One request waiting for, or being handled by, its app. The completion is opaque to the state
/// machine: only the runner calls it (through `DispatcherEffect.finish`).
struct PendingRequest: Sendable {
    let id: UInt64
    let request: OpenRequest
    let received: ContinuousClock.Instant
    let completion: Dispatcher.Completion
    /// Whether this request found its app not running (it caused or waited for a launch).
    let launched: Bool
}

/// What a state transition leaves for the runner to do once the lock is released, in order.
///
/// Transitions never perform these themselves: they are pure (`DispatcherState` in, new state and
/// effects out), so they can be tested without processes, and nothing slow runs under the lock.
enum DispatcherEffect: Sendable {
    /// Tell the observer.
    case event(DispatcherEvent)
    /// One line for the broker's log.
    case log(Logger.Level, Logger.Message)
    /// Start the app's process; the runner reports back with `spawned` or `spawnFailed` for
    /// `generation`, and later `processExited`.
    case spawn(LaunchSpec, generation: UInt64)
    /// Start the launch timer: `launchTimedOut(bundleID, generation)` after `timeout`.
    case startLaunchTimer(bundleID: String, generation: UInt64, timeout: Duration)
    /// The launch of `bundleID`'s `generation` is over (checked in, exited): its timer may go.
    case stopLaunchTimer(bundleID: String, generation: UInt64)
    /// SIGTERM the process, SIGKILL after the configured grace.
    case terminate(pid: Int32)
    /// Answer one request (its completion and its routing log line).
    case finish(PendingRequest, target: String, Result<OpenOutcome, BrokerError>)
    /// Hand one request to its app; the runner reports the answer with `delivered`.
    case deliver(PendingRequest, Delivery, AppEndpoint, generation: UInt64)
}
