import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// A connection to a message bus (or a peer), driven by its own I/O thread.
///
/// Thread-safe and `Sendable`: call it from any task. Replies, signals and incoming method calls
/// are decoded on the connection's I/O thread; exported method handlers *start on that thread*
/// (its `executor`), so a handler must not block — await instead (calls on the same connection
/// from a handler are fine). A lost connection never exits the process: pending calls fail with
/// `org.freedesktop.DBus.Error.Disconnected` and `waitUntilDisconnected()` returns.
///
/// The connection stays alive until `close()` or until the bus goes away.
public final class DBusConnection: Sendable, IOLoopClient {
    nonisolated(unsafe) let raw: OpaquePointer
    let loop: IOLoop
    let state = Mutex(ConnectionState())
    /// Serials of the messages this binding sends. Chosen here rather than by libdbus so that a
    /// call is registered as pending *before* it is sent, and the send (a syscall) runs outside
    /// `state`'s lock: the I/O thread never waits on a sender. Starts far above the serials libdbus
    /// gives its own few messages (Hello), so the two never meet.
    let serials = Atomic<UInt32>(0x4000_0000)
    /// How many calls were lent the socket to read their replies on their own threads
    /// (`readReplyOnCaller`); for tests.
    let callerReads = Atomic<Int>(0)
    /// How many calls the I/O thread built and sent for their callers (`callBuiltOnLoop`); for tests.
    let callsBuiltOnLoop = Atomic<Int>(0)
    /// Earliest deadline of any pending call (monotonic ns), or later: the I/O thread scans the
    /// pending calls only once it passes. Lowered under `state`'s lock when a call is registered.
    let earliestDeadline = Atomic<UInt64>(UInt64.max)
    /// Mirrors `state.disconnected` for the send paths (no lock per reply or signal).
    let closed = Atomic<Bool>(false)
    /// Header strings of the last messages decoded, reused when the next one repeats them (I/O thread).
    let headerCache = Mutex(HeaderStringCache())
    /// Headers of recent outgoing calls and signals, copied into new messages (`MessageTemplates`).
    let templates = Mutex(MessageTemplates())

    /// This connection's unique name on the bus (`:1.42`), nil on a peer-to-peer connection.
    public let uniqueName: BusName?

    /// The connection's I/O thread as a task executor. Running your own code on it
    /// (`Task(executorPreference: connection.executor)`) removes the thread hop between the
    /// socket and your code; never block on it.
    public var executor: any TaskExecutor { loop }

    // MARK: Opening

    /// Connects to the bus at `address` (a D-Bus address such as `unix:path=/run/user/1000/bus`) and,
    /// when `registerOnBus` is true, says Hello to obtain a unique name.
    public convenience init(address: String, registerOnBus: Bool = true) throws(DBusError) {
        if address.utf8.contains(0) || address.isEmpty {
            throw DBusError.failed("invalid D-Bus address '\(address)'")
        }
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let c = address.withCString({ dbus_connection_open_private($0, &err) }) else {
            throw Self.error(from: &err, fallback: "cannot connect to '\(address)'")
        }
        dbus_connection_set_exit_on_disconnect(c, 0)
        if registerOnBus {
            guard dbus_bus_register(c, &err) != 0 else {
                let e = Self.error(from: &err, fallback: "cannot register on the bus at '\(address)'")
                dbus_connection_close(c)
                dbus_connection_unref(c)
                throw e
            }
        }
        self.init(opened: c)
    }

    /// A peer that connected to a `DBusServer` (libdbus's reference is the caller's; this takes
    /// its own). Nothing is read, not even the peer's authentication, until `startReading()`.
    convenience init(accepted c: OpaquePointer) {
        dbus_connection_ref(c)
        dbus_connection_set_exit_on_disconnect(c, 0)
        self.init(opened: c, reading: false)
    }

    /// Starts the I/O thread of a connection made with `init(accepted:)`. Once only.
    func startReading() {
        loop.start(client: self)
    }

    /// Takes over `c` (one reference) and, if `reading`, starts its I/O thread.
    private init(opened c: OpaquePointer, reading: Bool = true) {
        // The connection's own reference, besides the I/O loop's (dropped when the loop stops):
        // a message sent from another thread while or after the connection closes — a signal
        // emitted as an app exits during teardown — then meets a closed connection, which drops
        // it, never a freed one (that corrupted the heap).
        self.raw = dbus_connection_ref(c)
        self.uniqueName = dbus_bus_get_unique_name(c).map { BusName(unchecked: String(cString: $0)) }
        self.loop = IOLoop(connection: c)
        dbus_connection_set_change_sigpipe(1)  // a closed socket must give EPIPE, not kill the process
        if reading { loop.start(client: self) }
    }

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws(DBusError) -> DBusConnection {
        try bus(DBUS_BUS_SESSION, "session")
    }

    /// Connects to the system bus.
    public static func system() throws(DBusError) -> DBusConnection {
        try bus(DBUS_BUS_SYSTEM, "system")
    }

    private static func bus(_ type: DBusBusType, _ what: String) throws(DBusError) -> DBusConnection {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        // Resolve the address without letting libdbus connect (its bus helpers enable exit-on-disconnect).
        let address: String?
        if type == DBUS_BUS_SESSION {
            address = getenvString("DBUS_SESSION_BUS_ADDRESS")
        } else {
            address = getenvString("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/run/dbus/system_bus_socket"
        }
        guard let address, !address.isEmpty else {
            throw DBusError.failed("no \(what) bus: DBUS_SESSION_BUS_ADDRESS is not set (run inside a session or dbus-run-session)")
        }
        return try DBusConnection(address: address)
    }

    static func error(from err: inout CDBus.DBusError, fallback: String) -> DBusError {
        if dbus_error_is_set(&err) != 0 {
            return DBusError(
                name: err.name.map { String(cString: $0) } ?? DBusError.failedName,
                message: err.message.map { String(cString: $0) } ?? fallback)
        }
        return DBusError.failed(fallback)
    }

    deinit {
        dbus_connection_unref(raw)
    }

    // MARK: Closing and disconnection

    /// Closes the connection: pending calls fail with `Disconnected`, signal streams finish.
    /// Idempotent; returns at once (the I/O thread finishes the work).
    public func close() {
        loop.stop()
    }

    /// True until the connection is closed or lost.
    public var isConnected: Bool { !state.withLock { $0.disconnected } }

    /// Returns when the connection is closed or lost.
    public func waitUntilDisconnected() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let already = state.withLock { st -> Bool in
                if st.disconnected { return true }
                st.disconnectWaiters.append(c)
                return false
            }
            if already { c.resume() }
        }
    }

    /// Fails everything that waits on this connection; called on the I/O thread.
    func handleDisconnected() {
        let (pending, subs, waiters) = state.withLock { st in
            st.disconnected = true
            closed.store(true, ordering: .releasing)
            let p = st.pending
            let s = st.subscriptions
            let w = st.disconnectWaiters
            st.pending = [:]
            st.subscriptions = [:]
            st.disconnectWaiters = []
            return (p, s, w)
        }
        let error = DBusError.disconnected("the D-Bus connection \(uniqueName?.rawValue ?? "") was closed or lost")
        for p in pending.values { p.resume(.failure(error)) }
        for s in subs.values { s.finish() }
        for w in waiters { w.resume() }
        loop.stop()
    }

    func loopDidStop() {
        handleDisconnected()
    }

    func loopHandle(_ message: OpaquePointer) {
        _ = filter(message)
    }

    var loopEarliestDeadline: UInt64 { earliestDeadline.load(ordering: .acquiring) }

    func loopCheckDeadlines(now: UInt64) -> UInt64 {
        // Nothing can have expired before the earliest deadline: no lock, no scan.
        let hint = earliestDeadline.load(ordering: .acquiring)
        if now < hint { return hint }
        let (expired, next) = state.withLock { st -> ([PendingCall], UInt64) in
            var expired: [PendingCall] = []
            var next = UInt64.max
            for (serial, p) in st.pending {
                if p.deadline <= now {
                    expired.append(p)
                    st.pending[serial] = nil
                } else if p.deadline < next {
                    next = p.deadline
                }
            }
            earliestDeadline.store(next, ordering: .releasing)
            return (expired, next)
        }
        for p in expired {
            p.resume(.failure(DBusError(
                name: DBusError.noReplyName,
                message: "no reply to \(p.target) within \(p.timeout) (the peer may be busy, gone, or never replying)")))
        }
        return next
    }
}

/// Mutable state of a connection, guarded by its mutex.
struct ConnectionState: ~Copyable {
    var pending: [UInt32: PendingCall] = [:]
    var objects: [ObjectPath: [DBusInterface]] = [:]
    var subscriptions: [UInt64: Subscription] = [:]
    var nextID: UInt64 = 1
    var disconnected = false
    var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    /// The last path routed and what it serves (cleared by every export and unexport). Calls
    /// mostly repeat the path, and the decoder hands out the same `String` for a repeated header
    /// string, so comparing is a pointer check instead of hashing the path.
    var lastLookup: (path: ObjectPath, interfaces: [DBusInterface]?)?

    /// No call is waiting for its reply.
    var isIdle: Bool { pending.isEmpty }

    func isPending(_ serial: UInt32) -> Bool { pending[serial] != nil }

    /// The call waiting under `serial`, taken out (nil when it already ended).
    mutating func removePending(_ serial: UInt32) -> PendingCall? { pending.removeValue(forKey: serial) }

    /// The interfaces exported at `path`.
    mutating func interfaces(at path: ObjectPath) -> [DBusInterface]? {
        if let last = lastLookup, last.path == path { return last.interfaces }
        let found = objects[path]
        lastLookup = (path, found)
        return found
    }
}

struct PendingCall {
    /// Who takes the reply: a suspended task, or a callback (`call(…, completion:)`).
    enum Waiter {
        case task(UnsafeContinuation<DBusMessage, any Error>)
        case callback(@Sendable (Result<DBusMessage, any Error>) -> Void)
    }

    let waiter: Waiter
    let deadline: UInt64
    let target: CallTarget
    let timeout: Duration
    /// The waiting task may read its next reply on its own thread (no executor preference, not
    /// the I/O thread; see `readReplyOnCaller`): its reply is resumed once the I/O thread is
    /// about to sleep (`IOLoop.resumeWhenIdle`).
    var callerMayBorrow = false

    /// Hands over the outcome; called once, by whoever removed the entry from `pending`.
    func resume(_ result: Result<DBusMessage, any Error>) {
        switch waiter {
        case .task(let continuation): continuation.resume(with: result)
        case .callback(let completion): completion(result)
        }
    }
}

struct Subscription: Sendable {
    let rule: MatchRule
    let deliver: @Sendable (DBusMessage) -> Void
    let finish: @Sendable () -> Void
}

func getenvString(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    return String(cString: p)
}
