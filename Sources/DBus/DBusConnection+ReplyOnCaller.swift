import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// What became of a call its caller tried to answer on its own thread (`readReplyOnCaller`).
enum CallerRead {
    /// The socket was not lent: nothing was sent, the call goes the ordinary way.
    case notTried
    /// The reply (or error reply) arrived and was read on the caller's thread.
    case answered(Result<DBusMessage, any Error>)
    /// Sent, but not answered within the time the caller may block: the caller still holds the
    /// socket and must register the call as pending, then `returnSocket`.
    case sent
}

extension DBusConnection {
    /// How long a caller may block its thread on its own reply (`readReplyOnCaller`) before it
    /// suspends the ordinary way: far above a bus round trip (~0.1 ms), short enough that a slow
    /// peer holds a thread of the cooperative pool only briefly.
    static let callerReadBudget: UInt64 = 2_000_000

    /// Sends `m` (numbered `serial`) and reads its reply on the calling thread, like
    /// `dbus_connection_send_with_reply_and_block`, when that is cheaper than the ordinary path:
    /// the caller is a task of the global pool (no executor preference, not the I/O thread: the
    /// caller checks that before it calls this), no other call of this connection is in flight,
    /// and the I/O thread sleeps idle — then the I/O thread lends the socket (`IOLoop.borrowSocket`)
    /// and the reply needs no wake-up of it and no resumption of a pool thread (each a futex or
    /// eventfd wake and two context switches).
    /// Anything else that arrives meanwhile (signals, calls to exported objects, other replies) is
    /// handed to the I/O thread, in order, and routed there as usual. Blocks at most
    /// `callerReadBudget`, and never past `deadline`.
    func readReplyOnCaller(_ m: OpaquePointer, serial: UInt32, deadline: UInt64) -> CallerRead {
        guard loop.mayLendSocket,
              state.withLock({ $0.isIdle && !$0.disconnected }),
              let fd = loop.borrowSocket()
        else { return .notTried }
        callerReads.add(1, ordering: .relaxed)
        guard loop.send(m, on: raw) else {
            loop.returnSocket()
            return .answered(.failure(DBusError.failed("out of memory sending a D-Bus message")))
        }
        let end = min(deadline, monotonicNanoseconds() &+ Self.callerReadBudget)
        var connected = true
        while true {
            while let r = dbus_connection_pop_message(raw) {
                let type = dbus_message_get_type(r)
                if (type == cdbus_message_type_method_return() || type == cdbus_message_type_error())
                    && dbus_message_get_reply_serial(r) == serial {
                    let reply = MessageCodec.decode(r, reusing: headerCache)
                    dbus_message_unref(r)
                    loop.returnSocket()
                    return .answered(reply.outcome)
                }
                loop.handOver(r)
            }
            let now = monotonicNanoseconds()
            if !connected || now >= end { return .sent }
            var events = Int16(POLLIN)
            if dbus_connection_has_messages_to_send(raw) != 0 { events |= Int16(POLLOUT) }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let n = poll(&p, 1, Int32((end - now + 999_999) / 1_000_000))
            // Read (and write) without blocking; false once the connection is closed or lost:
            // then pop what is left (the loop routes the Disconnected message) and stop.
            if n > 0 && dbus_connection_read_write(raw, 0) == 0 { connected = false }
        }
    }
}

extension DBusMessage {
    /// A reply as the caller sees it: an error reply is a thrown `DBusError`.
    var outcome: Result<DBusMessage, any Error> {
        if kind == .error {
            return .failure(DBusError(name: errorName ?? DBusError.failedName, message: body.first?.stringValue ?? ""))
        }
        return .success(self)
    }
}
