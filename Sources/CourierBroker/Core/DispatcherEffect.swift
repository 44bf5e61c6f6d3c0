import CourierNames
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
    /// When the caller's own deadline (`timeout-ms`, counted from when the broker received the
    /// request) passes; nil when it set none.
    var deadline: ContinuousClock.Instant? = nil
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
    /// Start a timer: `timerFired(kind, bundleID, generation)` after `after`.
    case startTimer(DispatcherTimer, bundleID: String, generation: UInt64, after: Duration)
    /// What the timer of `generation` waited for is over (checked in, exited): it may go.
    case stopTimer(DispatcherTimer, bundleID: String, generation: UInt64)
    /// Send `WillTerminate` with `deadline`; the runner reports the answer with `noticeEnded`.
    case notifyTermination(AppEndpoint, generation: UInt64, deadline: Duration)
    /// The app ended without being asked (a crash): remove the state it preserved, so its next
    /// launch is not restored from it.
    case discardSavedState(bundleID: String)
    /// SIGTERM the process, SIGKILL after the configured grace: through `process` when the broker
    /// holds it (it did not launch it), else through the launcher (its own child).
    case terminate(pid: Int32, process: ProcessHandle?)
    /// SIGKILL the process now, without notice (`courier quit --force`).
    case kill(pid: Int32, process: ProcessHandle?)
    /// Read the last lines of the app's log for the end of process `pid`; the runner reports them
    /// with `logRead`.
    case readLogTail(bundleID: String, pid: Int32)
    /// Answer callers of `courier launch` / `restart`.
    case launchAnswered([AppRecord.LaunchWaiter], Result<LaunchAnswer, CourierError>)
    /// Answer one request (its completion and its routing log line).
    case finish(PendingRequest, target: String, Result<OpenOutcome, CourierError>)
    /// Hand one request to its app; the runner reports the answer with `delivered`.
    case deliver(PendingRequest, Delivery, AppEndpoint, generation: UInt64)
}

/// The dispatcher's timers, one of each kind per app at a time.
enum DispatcherTimer: Sendable, Hashable {
    /// A launched process has this long to check in.
    case launch
    /// A terminating app has this long to finish its request in flight, then to answer
    /// `WillTerminate`, before it is signalled; once signalled, this long to leave the bus.
    case terminationDeadline
    /// The earliest caller deadline (`timeout-ms`) among the app's queued and in-flight requests.
    case requestDeadline
    /// A running app that went from active to idle is reported idle if it still is then
    /// (`AppRecord.reportState`).
    case idleReport
    /// A keep-alive app's crash-loop back-off is over: relaunch it.
    case keepAlive
}
