import Dispatch
import Synchronization

/// Keeps the desktop entries in step with a changing registry without blocking the caller: what the
/// broker calls at start-up, after `RegisterManifest` / `Unregister` and after a hot reload.
///
/// ``update(_:)`` returns at once; the file work (entries, `mimeapps.list`,
/// `update-desktop-database`) runs on a private serial queue. Updates that arrive while one is
/// running are coalesced: only the latest set of apps is written next, since each call describes
/// the whole registry.
public final class DesktopEntrySync: Sendable {
    /// What a finished synchronization did, or why it failed.
    public typealias Outcome = Result<DesktopIntegration.Report, DesktopIntegrationError>

    private let integration: DesktopIntegration
    private let onOutcome: @Sendable (Outcome) -> Void
    private let queue = DispatchQueue(label: "org.courier.desktop-entries")
    private let pending = Mutex<Pending>(Pending())

    private struct Pending {
        var apps: [DesktopApp]?
        var scheduled = false
        var generation = 0
        var completed = 0
    }

    /// - Parameter onOutcome: called on the private queue after each synchronization (for logs).
    public init(integration: DesktopIntegration, onOutcome: @escaping @Sendable (Outcome) -> Void = { _ in }) {
        self.integration = integration
        self.onOutcome = onOutcome
    }

    /// Asks for the Courier entries to become exactly `apps` (see ``DesktopIntegration/synchronize(_:)``).
    public func update(_ apps: [DesktopApp]) {
        let schedule = pending.withLock { state -> Bool in
            state.apps = apps
            state.generation += 1
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Waits until every update asked for so far has been written.
    public func flush() async {
        let target = pending.withLock { $0.generation }
        while pending.withLock({ $0.completed < target }) {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume() }
            }
        }
    }

    private func drain() {
        while true {
            let next = pending.withLock { state -> (apps: [DesktopApp], generation: Int)? in
                guard let apps = state.apps else {
                    state.scheduled = false
                    return nil
                }
                state.apps = nil
                return (apps, state.generation)
            }
            guard let next else { return }
            let outcome = Outcome { () throws(DesktopIntegrationError) in try integration.synchronize(next.apps) }
            pending.withLock { $0.completed = max($0.completed, next.generation) }
            onOutcome(outcome)
        }
    }
}
