import Synchronization
internal import CDBus

extension DBusConnection {
    // MARK: Building messages (validated before libdbus sees anything)

    /// A method call or signal with `arguments` appended, numbered by nobody yet; the caller owns it.
    /// Its header is copied from the connection's template for the same target (`MessageTemplates`).
    /// `validated`: the caller already ran `MessageCodec.validate` on `arguments`.
    func makeMessage(
        type: Int32, destination: BusName?, path: ObjectPath?, interface: InterfaceName?, member: MemberName,
        arguments: [DBusValue], validated: Bool = false
    ) throws(DBusError) -> OpaquePointer {
        if !validated { try MessageCodec.validate(arguments, orThrowDBus: ()) }
        if let whole = WireMessage.make(
            .init(type: type, path: type == cdbus_message_type_method_call() ? path ?? .root : path, interface: interface, member: member, destination: destination), body: arguments) {
            return whole
        }
        let key = MessageTemplate.Key(type: type, destination: destination, path: path, interface: interface, member: member)
        guard let m = messageTemplate(for: key)?.copy() else { throw DBusError.failed("out of memory creating a D-Bus message") }
        guard MessageCodec.append(arguments, to: m) else {
            dbus_message_unref(m)
            throw DBusError.failed("cannot build the D-Bus message (out of memory or an fd that cannot be duplicated)")
        }
        if dbus_message_contains_unix_fds(m) != 0 && dbus_connection_can_send_type(raw, Int32(UInt8(ascii: "h"))) == 0 {
            dbus_message_unref(m)
            throw DBusError.notSupported("this connection cannot pass unix file descriptors")
        }
        return m
    }

    /// The template for `key`, built (from `call` for a method return) and kept on a miss; nil
    /// when libdbus is out of memory.
    private func messageTemplate(for key: MessageTemplate.Key, replyTo call: OpaquePointer? = nil) -> MessageTemplate? {
        if let kept = templates.withLock({ $0.template(for: key) }) { return kept }
        guard let made = MessageTemplate(key, replyTo: call) else { return nil }
        templates.withLock { $0.keep(made) }
        return made
    }

    // MARK: Calls

    /// Calls a method and returns the reply's body.
    ///
    /// - Parameters:
    ///   - destination: the bus name to call (nil on a peer-to-peer connection).
    ///   - timeout: how long to wait for the reply; then the call fails with
    ///     `org.freedesktop.DBus.Error.NoReply`.
    /// - Throws: `DBusError` with the peer's error name and message when it replies with an error;
    ///   `Disconnected` when the connection goes away; `CancellationError` when the task is cancelled.
    public func call(
        _ destination: BusName?, path: ObjectPath, interface: InterfaceName?, method: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await callMessage(destination, path: path, interface: interface, method: method, arguments, timeout: timeout).body
    }

    /// Like `call`, but returns the whole reply message (sender, signature, fds).
    public func callMessage(
        _ destination: BusName?, path: ObjectPath, interface: InterfaceName?, method: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws -> DBusMessage {
        let target = CallTarget(destination: destination, path: path, interface: interface, method: method)
        let fromPool = !loop.isOnLoopThread && withUnsafeCurrentTask { $0?.unownedTaskExecutor == nil }
        if fromPool, shouldBuildOnLoop(arguments) {
            return try await callBuiltOnLoop(target, arguments, timeout: timeout)
        }
        let m = try makeMessage(
            type: cdbus_message_type_method_call(), destination: destination, path: path, interface: interface,
            member: method, arguments: arguments)
        defer { dbus_message_unref(m) }
        return try await send(m, timeout: timeout, target: target, callerMayBorrow: fromPool)
    }

    /// Sends a method call that expects no reply (the callee is told not to answer).
    public func callNoReply(
        _ destination: BusName?, path: ObjectPath, interface: InterfaceName?, method: MemberName,
        _ arguments: [DBusValue] = []
    ) throws(DBusError) {
        let m = try makeMessage(
            type: cdbus_message_type_method_call(), destination: destination, path: path, interface: interface,
            member: method, arguments: arguments)
        defer { dbus_message_unref(m) }
        dbus_message_set_no_reply(m, 1)
        try sendNoReply(m)
    }

    func sendNoReply(_ m: OpaquePointer) throws(DBusError) {
        if closed.load(ordering: .acquiring) { throw DBusError.disconnected("the D-Bus connection is closed") }
        dbus_message_set_serial(m, nextSerial())
        guard loop.send(m, on: raw) else { throw DBusError.failed("out of memory sending a D-Bus message") }
    }

    /// `earliestDeadline = min(earliestDeadline, deadline)`; true when it lowered it. A
    /// compare-exchange loop, because `Atomic<UInt64>.min` compares as signed (UInt64.max would
    /// count as -1) in Swift 6.3.
    @discardableResult
    func lowerEarliestDeadline(to deadline: UInt64) -> Bool {
        var current = earliestDeadline.load(ordering: .relaxed)
        while deadline < current {
            let (exchanged, original) = earliestDeadline.compareExchange(
                expected: current, desired: deadline, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// The next serial of this connection's own range (never 0).
    func nextSerial() -> UInt32 {
        while true {
            let s = serials.wrappingAdd(1, ordering: .relaxed).newValue
            if s != 0 { return s }
        }
    }

    /// Sends the call `m` and waits for its reply. `callerMayBorrow`: the caller is a task of the
    /// global pool (no executor preference, not the I/O thread), which may read its own reply.
    private func send(_ m: OpaquePointer, timeout: Duration, target: CallTarget, callerMayBorrow: Bool) async throws -> DBusMessage {
        try Task.checkCancellation()
        let serial = nextSerial()
        dbus_message_set_serial(m, serial)
        let deadline = Self.deadline(after: timeout)
        let alreadySent: Bool
        switch callerMayBorrow ? readReplyOnCaller(m, serial: serial, deadline: deadline) : .notTried {
        case .answered(let result): return try result.get()
        case .notTried: alreadySent = false
        case .sent: alreadySent = true
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<DBusMessage, any Error>) in
                var call = PendingCall(waiter: .task(c), deadline: deadline, target: target, timeout: timeout)
                call.callerMayBorrow = callerMayBorrow
                if alreadySent {
                    let lowered = register(call, serial: serial) == .lowersEarliestDeadline
                    loop.returnSocket()
                    if lowered { loop.noteDeadline(deadline) }
                } else {
                    send(m, serial: serial, call: call)
                }
                if Task.isCancelled { cancelPending(serial) }
            }
        } onCancel: {
            cancelPending(serial)
        }
    }

    /// `timeout` from now on the monotonic clock, in nanoseconds.
    static func deadline(after timeout: Duration) -> UInt64 {
        let (s, a) = timeout.components
        let ns = max(Int64(0), s) * 1_000_000_000 + max(Int64(0), a / 1_000_000_000)
        return monotonicNanoseconds() &+ UInt64(ns)
    }

    /// Calls a method and hands the reply to `completion`, without suspending: for code that must
    /// not await, such as a deferred handler forwarding a call (`DBusMethod(…, deferred:)`).
    ///
    /// `completion` runs exactly once: on the connection's I/O thread when the reply, an error
    /// reply, the timeout or a disconnect arrives, or at once on the calling thread when the call
    /// cannot be sent (invalid arguments, a closed connection). It must be quick and must not
    /// block: every message on the connection waits for it. Same errors as `call`.
    public func call(
        _ destination: BusName?, path: ObjectPath, interface: InterfaceName?, method: MemberName,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25),
        completion: @escaping @Sendable (Result<DBusMessage, any Error>) -> Void
    ) {
        let m: OpaquePointer
        do {
            m = try makeMessage(
                type: cdbus_message_type_method_call(), destination: destination, path: path, interface: interface,
                member: method, arguments: arguments)
        } catch {
            return completion(.failure(error))
        }
        defer { dbus_message_unref(m) }
        let serial = nextSerial()
        dbus_message_set_serial(m, serial)
        let call = PendingCall(
            waiter: .callback(completion), deadline: Self.deadline(after: timeout),
            target: CallTarget(destination: destination, path: path, interface: interface, method: method), timeout: timeout)
        send(m, serial: serial, call: call)
    }

    /// Registers `call` for the reply to `m` (already numbered `serial`), then sends it. The
    /// entry goes in before the send, so a reply can never arrive unexpected; the send itself
    /// (a syscall) runs outside the lock. Whoever removes the entry resumes the waiter: the reply,
    /// a timeout, a disconnect, a cancel, or this function when the send fails.
    private func send(_ m: OpaquePointer, serial: UInt32, call: PendingCall) {
        let registration = register(call, serial: serial)
        guard registration != .refused else { return }
        guard loop.send(m, on: raw) else {
            return fail(serial, DBusError.outOfMemory(calling: call.target))
        }
        if registration == .lowersEarliestDeadline { loop.noteDeadline(call.deadline) }
    }

    /// What `register` did with a call.
    private enum Registration {
        /// The connection is closed: the call was resumed with `Disconnected`.
        case refused
        /// Entered, and its deadline is the earliest: the I/O thread may have to wake sooner.
        case lowersEarliestDeadline
        /// Entered behind a call with an earlier or equal deadline, so the I/O thread already
        /// plans to wake by then (it looks at `earliestDeadline` before it sleeps, and whoever
        /// lowered it told it): no need to read its plans, a line it writes on every sleep.
        case entered
    }

    /// Enters `call` as pending under `serial`.
    private func register(_ call: PendingCall, serial: UInt32) -> Registration {
        let registration: Registration = state.withLock { st in
            if st.disconnected { return .refused }
            st.pending[serial] = call
            return lowerEarliestDeadline(to: call.deadline) ? .lowersEarliestDeadline : .entered
        }
        if registration == .refused {
            call.resume(.failure(DBusError.closed(calling: call.target)))
        }
        return registration
    }

    func cancelPending(_ serial: UInt32) {
        fail(serial, CancellationError())
    }

    /// Ends the call waiting under `serial` with `error` (nothing when it already ended).
    func fail(_ serial: UInt32, _ error: any Error) {
        guard let p = state.withLock({ $0.removePending(serial) }) else { return }
        p.resume(.failure(error))
    }

    // MARK: Signals out

    /// Emits a signal from `path` (to everyone subscribed, or only to `destination`).
    public func emitSignal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, _ arguments: [DBusValue] = [],
        destination: BusName? = nil
    ) throws(DBusError) {
        let m = try makeMessage(
            type: cdbus_message_type_signal(), destination: destination, path: path, interface: interface,
            member: member, arguments: arguments)
        defer { dbus_message_unref(m) }
        try sendNoReply(m)
    }

    // MARK: Replies (used by exported objects)

    /// Sends a method return for `call` (nothing when the caller asked for no reply).
    func sendReply(to call: DBusMessage, _ values: [DBusValue]) throws(DBusError) {
        if call.noReplyExpected { return }
        try MessageCodec.validate(values, orThrowDBus: ())
        return try sendValidatedReply(to: call, values)
    }

    /// `sendReply` for values whose types already matched a valid declared signature.
    func sendValidatedReply(to call: DBusMessage, _ values: [DBusValue]) throws(DBusError) {
        if call.noReplyExpected { return }
        guard let m = dbus_message_new(cdbus_message_type_method_return()) else { throw DBusError.failed("out of memory") }
        defer { dbus_message_unref(m) }
        _ = dbus_message_set_reply_serial(m, call.serial)
        if let s = call.sender { _ = s.rawValue.withCString { dbus_message_set_destination(m, $0) } }
        guard MessageCodec.append(values, to: m) else { throw DBusError.failed("cannot build the reply") }
        try sendNoReply(m)
    }

    /// Sends a method return to `call` (whose sender is `call.sender`), built from the call's own
    /// libdbus message (see `ReplyTarget`).
    func sendMethodReturn(_ target: ReplyTarget, to call: DBusMessage, _ values: [DBusValue]) throws(DBusError) {
        guard let raw = target.call else { return }
        let m = try methodReturn(to: call, raw: raw, values)
        defer { dbus_message_unref(m) }
        try sendNoReply(m)
    }

    /// The method return to `call` carrying `values`, owned by the caller.
    ///
    /// A small body this connection already sent the same caller is copied whole from the reply
    /// kept then (`MessageTemplates`), with the new reply serial: a service mostly answers alike
    /// (the broker answers every OpenURL routed to one app with the same `bsa{sv}`, an app its
    /// `ba{sv}`), and building a reply is most of what answering costs the service's I/O thread
    /// (callgrind: 43 k instructions for the broker's, 31 k for the app's; a copy and the serial
    /// ~4 k). Otherwise the reply is written whole (`WireMessage`) or appended to a copy of the
    /// caller's reply header, and kept when it is small and holds no file descriptor.
    private func methodReturn(to call: DBusMessage, raw: OpaquePointer, _ values: [DBusValue]) throws(DBusError) -> OpaquePointer {
        let keep = !values.isEmpty && values.reduce(0) { $0 + $1.byteCount } <= MessageTemplate.maxKeptBodyBytes
        let key = MessageTemplate.Key.methodReturn(to: call.sender, body: values)
        if keep, let kept = templates.withLock({ $0.template(for: key) }) {
            guard let m = kept.copy() else { throw DBusError.failed("out of memory") }
            guard dbus_message_set_reply_serial(m, call.serial) != 0 else {
                dbus_message_unref(m)
                throw DBusError.failed("out of memory")
            }
            return m
        }
        let m: OpaquePointer
        if let whole = WireMessage.make(.methodReturn(to: call), body: values) {
            m = whole
        } else {
            guard let header = messageTemplate(for: .methodReturn(to: call.sender), replyTo: raw)?.copy() else { throw DBusError.failed("out of memory") }
            guard MessageCodec.append(values, to: header), dbus_message_set_reply_serial(header, call.serial) != 0 else {
                dbus_message_unref(header)
                throw DBusError.failed("cannot build the reply")
            }
            m = header
        }
        if keep, dbus_message_contains_unix_fds(m) == 0, let copy = dbus_message_copy(m) {
            let kept = MessageTemplate(key, adopting: copy)
            templates.withLock { $0.keep(kept) }
        }
        return m
    }

    /// Sends an error reply for `call` (nothing when the caller asked for no reply).
    func sendError(to call: DBusMessage, _ error: DBusError) {
        if call.noReplyExpected { return }
        let name = (try? ErrorName(error.name))?.rawValue ?? DBusError.failedName
        let text = String(error.message.unicodeScalars.filter { $0 != "\0" })
        guard let m = dbus_message_new(cdbus_message_type_error()) else { return }
        defer { dbus_message_unref(m) }
        _ = name.withCString { dbus_message_set_error_name(m, $0) }
        _ = dbus_message_set_reply_serial(m, call.serial)
        if let s = call.sender { _ = s.rawValue.withCString { dbus_message_set_destination(m, $0) } }
        _ = MessageCodec.append([.string(text)], to: m)
        try? sendNoReply(m)
    }

    // MARK: The filter (I/O thread)

    /// Routes one incoming message; returns true when handled.
    func filter(_ m: OpaquePointer) -> Bool {
        let type = dbus_message_get_type(m)
        if type == cdbus_message_type_method_return() || type == cdbus_message_type_error() {
            let rs = dbus_message_get_reply_serial(m)
            guard rs != 0 else { return false }
            let (found, last) = state.withLock { st in (st.removePending(rs), st.isIdle) }
            guard let p = found else { return false }
            let outcome = MessageCodec.decode(m, reusing: headerCache).outcome
            // The last call in flight of a task that may borrow the socket next time: resumed once
            // the I/O thread is about to sleep, so that its next call finds it idle.
            if last, p.callerMayBorrow, case .task(let c) = p.waiter, loop.isOnLoopThread {
                loop.resumeWhenIdle(c, with: outcome)
            } else {
                p.resume(outcome)
            }
            return true
        }
        if type == cdbus_message_type_signal() {
            if dbus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                handleDisconnected()
                return true
            }
            let subs = state.withLock { Array($0.subscriptions.values) }
            if subs.isEmpty { return false }
            let signal = MessageCodec.decode(m, reusing: headerCache)
            for s in subs where s.rule.matches(signal) { s.deliver(signal) }
            return true
        }
        if type == cdbus_message_type_method_call() {
            handleMethodCall(MessageCodec.decode(m, reusing: headerCache), raw: m)
            return true
        }
        return false
    }
}

/// The libdbus message of a call being served, referenced until its handler is done, to build
/// the reply from (nil when the caller wants no reply). Only the handler's task uses it after the
/// I/O thread has routed it, and a received message is never modified: no libdbus state is shared.
struct ReplyTarget: @unchecked Sendable {
    let call: OpaquePointer?

    init(call: OpaquePointer?) {
        if let call { dbus_message_ref(call) }
        self.call = call
    }

    /// Without a reference, for use while the I/O thread still holds the message (never `release` it).
    init(borrowing call: OpaquePointer?) {
        self.call = call
    }

    /// Drops the reference (once, when the handler is done).
    func release() {
        if let call { dbus_message_unref(call) }
    }
}

extension DBusError {
    /// The error of a call that cannot go out because its connection is closed.
    static func closed(calling target: CallTarget) -> DBusError {
        .disconnected("the D-Bus connection is closed; cannot call \(target)")
    }

    /// The error of a call libdbus had no memory to send.
    static func outOfMemory(calling target: CallTarget) -> DBusError {
        .failed("out of memory sending a call to \(target)")
    }
}

/// Where a call went; formatted only when an error message needs it.
struct CallTarget: Sendable, CustomStringConvertible {
    let destination: BusName?
    let path: ObjectPath
    let interface: InterfaceName?
    let method: MemberName
    var description: String { "\(interface?.rawValue ?? "").\(method) on \(destination?.rawValue ?? "peer") \(path)" }
}

extension MessageCodec {
    static func validate(_ values: [DBusValue], orThrowDBus: Void) throws(DBusError) {
        do { try validate(values) } catch { throw error.asDBusError }
    }
}

/// `body` with a C string for `s`, or NULL when `s` is nil.
func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
