/// When the broker terminates apps by itself, and how much notice it gives (docs/lifecycle.md).
///
/// Both policies are off by default: an app Courier launched runs until it exits, is quit
/// (`courier quit`) or the user turns a policy on (`courierd --idle-timeout`, `--memory-pressure`,
/// or the config file).
public struct TerminationPolicy: Sendable {
    /// Terminate an app that has been idle (checked in, nothing in flight or queued) this long;
    /// nil: never. A manifest opts out with `CourierTerminatesWhenIdle` = false.
    public var idleTimeout: Duration?
    /// Under memory pressure, terminate the least recently used idle app, one per sweep, while
    /// the pressure lasts; nil: never.
    public var memoryPressure: MemoryPressurePolicy?
    /// How long an app has to answer `WillTerminate` (and save its state) before SIGTERM.
    public var noticeDeadline: Duration
    /// How often the policies are applied.
    public var sweepInterval: Duration

    public init(idleTimeout: Duration? = nil, memoryPressure: MemoryPressurePolicy? = nil, noticeDeadline: Duration = .seconds(5), sweepInterval: Duration = .seconds(1)) {
        self.idleTimeout = idleTimeout
        self.memoryPressure = memoryPressure
        self.noticeDeadline = noticeDeadline
        self.sweepInterval = sweepInterval
    }

    /// Whether anything needs a periodic sweep.
    public var isActive: Bool { idleTimeout != nil || memoryPressure != nil }
}
