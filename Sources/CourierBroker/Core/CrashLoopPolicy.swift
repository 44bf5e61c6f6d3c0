/// When an app keeps failing to launch or dying while handling, stop relaunching it for a while:
/// after `threshold` consecutive failures, launches are refused for `baseDelay`, doubling with each
/// further failure up to `maxDelay`. One completed delivery resets the count.
public struct CrashLoopPolicy: Sendable, Hashable {
    public var threshold: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(threshold: Int = 3, baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(60)) {
        self.threshold = threshold
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The back-off after `failures` consecutive failures; `nil` while under the threshold.
    public func backoff(afterFailures failures: Int) -> Duration? {
        guard failures >= threshold else { return nil }
        var delay = baseDelay
        for _ in 0..<min(failures - threshold, 16) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }
}
