/// What the I/O loop asks of its owner on every iteration.
protocol IOLoopClient: AnyObject, Sendable {
    /// Called on the loop thread after each wake-up: expire deadlines that passed, and return the
    /// next deadline (monotonic ns), or `UInt64.max`.
    func loopCheckDeadlines(now: UInt64) -> UInt64
    /// The earliest deadline `loopCheckDeadlines` could act on (or earlier), `UInt64.max` for none:
    /// with none, the loop neither reads the clock nor calls it.
    var loopEarliestDeadline: UInt64 { get }
    /// Called once on the loop thread when it stops, after the connection was closed and dispatched.
    func loopDidStop()
    /// Handles one incoming message (borrowed for the duration of the call) on the loop thread.
    func loopHandle(_ message: OpaquePointer)
    /// Registers calls other threads handed over (`IOLoop.buildCall`) as pending, on the loop
    /// thread, under the lock that `IOLoop.withdrawCall` takes: never call back into the loop.
    func loopRegisterCalls(_ calls: [UnbuiltCall])
    /// Builds and sends a call registered by `loopRegisterCalls`, on the loop thread.
    func loopBuildCall(_ call: UnbuiltCall)
}
