/// When an app keeps failing to launch or dying while handling, stop relaunching it for a while:
/// after `threshold` consecutive failures, launches are refused for `baseDelay`, doubling with each
/// further failure up to `maxDelay`. One completed delivery resets the count.
public struct CrashLoopPolicy: Sendable, Hashable {
    public var threshold: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    /// A keep-alive app (`CourierKeepAlive`) that failed this many times in a row is marked failed
    /// and no longer relaunched by itself (launchd's KeepAlive has no such limit; a crash loop
    /// here would otherwise last for ever, at `maxDelay`).
    public var keepAliveAttempts: Int
    /// A keep-alive instance that ran at least this long before it ended did not fail to start:
    /// its end restarts the count (launchd's ThrottleInterval plays this part).
    public var stableRun: Duration

    public init(threshold: Int = 3, baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(60), keepAliveAttempts: Int = 5, stableRun: Duration = .seconds(10)) {
        self.threshold = threshold
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.keepAliveAttempts = keepAliveAttempts
        self.stableRun = stableRun
    }

    /// The back-off after `failures` consecutive failures; `nil` while under the threshold.
    public func backoff(afterFailures failures: Int) -> Duration? {
        guard failures >= threshold else { return nil }
        var delay = baseDelay
        for _ in 0..<min(failures - threshold, 16) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }
}
