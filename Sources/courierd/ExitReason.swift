import Synchronization

/// Why courierd stopped serving: a termination signal (`TerminationSignals` closed the connection
/// on purpose) or the bus going away. The two end differently: after a signal the apps are still on
/// the bus and are left alone at once; after the bus is lost they lose it too, and courierd reaps
/// them before it says why it exits.
final class ExitReason: Sendable {
    private let received = Mutex<Int32?>(nil)

    /// Records that `number` (SIGTERM, SIGINT) asked courierd to stop.
    func signalled(_ number: Int32) { received.withLock { $0 = $0 ?? number } }

    /// The termination signal received, or nil when the bus connection ended by itself.
    var signal: Int32? { received.withLock { $0 } }
}
