import Courier
import Synchronization

/// Where the person was in the todolist — the task it last showed — kept across a termination by
/// state preservation (docs/lifecycle.md): after the broker reclaims the app and a new URL relaunches
/// it, the reply still says what was on screen before, so quitting is only an interruption.
final class TodoSession: Sendable {
    struct State: Codable, Sendable, Equatable {
        /// The task of the last URL handled.
        var lastShown: String?
        /// When it was shown ("yyyy-MM-dd HH:mm", local), as the reply said.
        var lastShownDue: String?
    }

    /// The key in the restorable state.
    static let key = "session"
    private let state = Mutex(State())

    var current: State { state.withLock { $0 } }

    /// Records `task` as shown; returns what was shown before it.
    func show(_ task: String, due: String) -> State {
        state.withLock { state in
            defer { state = State(lastShown: task, lastShownDue: due) }
            return state
        }
    }

    func encode(into coder: inout RestorableStateCoder) {
        try? coder.encode(current, forKey: Self.key)
    }

    /// Restores from `coder`; false when it holds no session of this shape.
    func restore(from coder: RestorableStateCoder) -> Bool {
        guard let restored = try? coder.decode(State.self, forKey: Self.key) else { return false }
        state.withLock { $0 = restored }
        return true
    }
}
