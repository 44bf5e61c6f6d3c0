internal import CDBus

extension DBusConnection {
    /// The largest body (`DBusValue.byteCount`) a call hands the I/O thread to build
    /// (`callBuiltOnLoop`): building a larger one there would hold up every other message of the
    /// connection while it is copied.
    static let maxBodyBuiltOnLoop = 64 * 1024

    /// Whether a call from a task of the global pool should be built and sent by the I/O thread:
    /// when other calls of this connection are in flight (the caller is one of several pipelining
    /// calls; a lone caller reads its own reply instead, `readReplyOnCaller`) and the body is small.
    func shouldBuildOnLoop(_ arguments: [DBusValue]) -> Bool {
        state.withLock { !$0.isIdle } && arguments.reduce(0, { $0 + $1.byteCount }) <= Self.maxBodyBuiltOnLoop
    }

    /// A call from a task of the global pool while other calls are in flight: the task checks the
    /// arguments, registers the call and hands the rest to the I/O thread, which builds the message
    /// and sends it; then the task waits for the reply as any call does.
    ///
    /// Why: libdbus builds and sends a message under locks of its own — the connection's, and
    /// process-wide ones for its list nodes and its message cache — that the I/O thread takes for
    /// every message it reads. Pool threads pipelining calls met the I/O thread on all of them, and
    /// each meeting moves those locks' cache lines between CPUs. Built and sent on the I/O thread,
    /// which is awake for the replies of the other calls anyway, they stay on one thread: the
    /// default caller's pipelined rate went from 0.77× to 0.84× of a C client's (docs/dbus-binding.md,
    /// "Session 11"). The order of one task's messages is kept: the task waits for this call's reply,
    /// which cannot come before the call is out.
    ///
    /// Same errors as `call`: invalid arguments throw before anything is registered; a message
    /// libdbus cannot build or send ends the call with that error.
    func callBuiltOnLoop(_ target: CallTarget, _ arguments: [DBusValue], timeout: Duration) async throws -> DBusMessage {
        try Task.checkCancellation()
        try MessageCodec.validate(arguments, orThrowDBus: ())
        let serial = nextSerial()
        let deadline = Self.deadline(after: timeout)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<DBusMessage, any Error>) in
                var call = PendingCall(waiter: .task(c), deadline: deadline, target: target, timeout: timeout)
                call.callerMayBorrow = true
                call.unbuiltArguments = arguments
                let registration = register(call, serial: serial)
                guard registration != .refused else { return }
                if !loop.buildCall(serial) {
                    fail(serial, DBusError.disconnected("the D-Bus connection is closed; cannot call \(target)"))
                } else if registration == .lowersEarliestDeadline {
                    loop.noteDeadline(deadline)
                }
                if Task.isCancelled { cancelPending(serial) }
            }
        } onCancel: {
            cancelPending(serial)
        }
    }

    /// Builds the call registered under `serial` and sends it (I/O thread). Nothing is sent when the
    /// call already ended (cancelled, timed out, the connection lost); a failure ends it.
    func buildAndSend(_ serial: UInt32) {
        guard let (target, arguments) = state.withLock({ $0.takeUnbuilt(serial) }) else { return }
        callsBuiltOnLoop.add(1, ordering: .relaxed)
        do {
            let m = try makeMessage(
                type: cdbus_message_type_method_call(), destination: target.destination, path: target.path,
                interface: target.interface, member: target.method, arguments: arguments, validated: true)
            defer { dbus_message_unref(m) }
            dbus_message_set_serial(m, serial)
            if !loop.send(m, on: raw) {
                fail(serial, DBusError.failed("out of memory sending a call to \(target)"))
            }
        } catch {
            fail(serial, error)
        }
    }
}
