internal import CDBus

/// What other threads hand the I/O loop, under one lock with the loop's sleeping state.
struct LoopHandOff: ~Copyable {
    var jobs: [UnownedJob] = []
    /// Calls for the loop to register, build and send (`IOLoop.buildCall`), in order.
    var calls: [UnbuiltCall] = []
    var sends: [OutgoingMessage] = []
    /// Messages a borrower of the socket popped and handed over, in order (`IOLoop.handOver`).
    var received: [OutgoingMessage] = []
    /// True while a thread has borrowed the socket (`IOLoop.borrowSocket`): `readFDs` are then out
    /// of the epoll set.
    var lent = false
    /// The descriptors the watches want read (in the epoll set, armed unless lent).
    var readFDs: [Int32] = []
    /// True while the loop sleeps without polling the epoll set (it was lent when the loop went
    /// to sleep): returning the socket must wake it.
    var sleepsBlind = false
    /// True while the loop sleeps in `poll` (or is about to): work handed over must wake it.
    var sleeping = false
    /// Set when the loop has stopped: jobs go to the global executor, sends are made directly.
    var stopped = false
    /// True while a thread other than the loop sends directly (`IOLoop.send`): it also sends
    /// what is queued in `sends` until they are empty, and the loop leaves them to it.
    var directSender = false

    /// Whoever hands the loop work while it sleeps wakes it, once: true for the first caller.
    mutating func takeSleeper() -> Bool {
        guard sleeping else { return false }
        sleeping = false
        return true
    }

    /// The loop is about to sleep: true (and `sleeping` set) when nothing is queued.
    mutating func announceSleep() -> Bool {
        guard jobs.isEmpty, calls.isEmpty, sends.isEmpty || directSender, received.isEmpty else { return false }
        sleeping = true
        return true
    }

    /// Brings the epoll set `epoll` in line with the watches' read interest `fds` (a descriptor
    /// added while the socket is lent stays disarmed until `returnSocket`).
    mutating func setReadInterest(_ fds: [Int32], epoll: Int32) {
        if fds == readFDs { return }
        for fd in readFDs where !fds.contains(fd) { _ = cdbus_epoll_remove(epoll, fd) }
        for fd in fds where !readFDs.contains(fd) {
            _ = cdbus_epoll_add_readable(epoll, fd)
            if lent { _ = cdbus_epoll_arm(epoll, fd, 0) }
        }
        readFDs = fds
    }
}
