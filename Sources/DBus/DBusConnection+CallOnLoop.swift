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
    /// arguments and hands the call to the I/O thread, which registers it as pending, builds the
    /// message and sends it; then the task waits for the reply as any call does.
    ///
    /// Why: libdbus builds and sends a message under locks of its own — the connection's, and
    /// process-wide ones for its list nodes and its message cache — that the I/O thread takes for
    /// every message it reads, and the pending calls are a dictionary under a lock that the I/O
    /// thread takes for every reply. Pool threads pipelining calls met the I/O thread on all of
    /// them, and each meeting moves cache lines between CPUs. Registered, built and sent on the I/O
    /// thread, which is awake for the replies of the other calls anyway, they stay on one thread;
    /// the caller's part is one queue append (docs/dbus-binding.md, "Calls built on the I/O thread"). The order of one
    /// task's messages is kept: the task waits for this call's reply, which cannot come before the
    /// call is out.
    ///
    /// Same errors as `call`: invalid arguments throw before anything is handed over; a message
    /// libdbus cannot build or send ends the call with that error; a cancel ends it wherever it is
    /// (`withdrawOrCancel`).
    func callBuiltOnLoop(_ target: CallTarget, _ arguments: [DBusValue], timeout: Duration) async throws -> DBusMessage {
        try Task.checkCancellation()
        try MessageCodec.validate(arguments, orThrowDBus: ())
        let serial = nextSerial()
        let deadline = Self.deadline(after: timeout)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<DBusMessage, any Error>) in
                var call = PendingCall(waiter: .task(c), deadline: deadline, target: target, timeout: timeout)
                call.callerMayBorrow = true
                guard loop.buildCall(UnbuiltCall(serial: serial, call: call, arguments: arguments)) else {
                    return c.resume(throwing: DBusError.closed(calling: target))
                }
                if Task.isCancelled { withdrawOrCancel(serial) }
            }
        } onCancel: {
            withdrawOrCancel(serial)
        }
    }

    /// Ends the call handed over under `serial` with `CancellationError`: taken back from the I/O
    /// thread's queue if it is still there, else out of the pending calls (nothing when it is over).
    private func withdrawOrCancel(_ serial: UInt32) {
        if let unbuilt = loop.withdrawCall(serial) {
            unbuilt.call.resume(.failure(CancellationError()))
        } else {
            cancelPending(serial)
        }
    }

    /// Enters calls handed over as pending (`IOLoopClient`; I/O thread, under the queue's lock:
    /// see `IOLoop.withdrawCall`); on a closed connection they end with `Disconnected`.
    func loopRegisterCalls(_ calls: [UnbuiltCall]) {
        let registered = state.withLock { st -> Bool in
            if st.disconnected { return false }
            for u in calls {
                st.pending[u.serial] = u.call
                lowerEarliestDeadline(to: u.call.deadline)
            }
            return true
        }
        if !registered {
            for u in calls { u.call.resume(.failure(DBusError.closed(calling: u.call.target))) }
        }
    }

    /// Builds a registered call and sends it (`IOLoopClient`; I/O thread). Nothing is sent when
    /// the call already ended (cancelled, the connection lost); a failure ends it.
    func loopBuildCall(_ unbuilt: UnbuiltCall) {
        let serial = unbuilt.serial, target = unbuilt.call.target
        guard state.withLock({ $0.isPending(serial) }) else { return }
        callsBuiltOnLoop.add(1, ordering: .relaxed)
        do {
            let m = try makeMessage(
                type: cdbus_message_type_method_call(), destination: target.destination, path: target.path,
                interface: target.interface, member: target.method, arguments: unbuilt.arguments, validated: true)
            defer { dbus_message_unref(m) }
            dbus_message_set_serial(m, serial)
            if !loop.send(m, on: raw) {
                fail(serial, DBusError.outOfMemory(calling: target))
            }
        } catch {
            fail(serial, error)
        }
    }
}

/// A call a task hands the I/O thread to register, build and send (`callBuiltOnLoop`).
struct UnbuiltCall {
    let serial: UInt32
    let call: PendingCall
    let arguments: [DBusValue]
}
