import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// One thread per connection that owns all of libdbus's I/O for it: it polls the connection's
/// watches (and an eventfd to be woken), handles libdbus timeouts, dispatches incoming messages,
/// and runs Swift jobs as a `TaskExecutor` — so handlers and replies started here need no thread
/// hop. There is no periodic wake-up: the loop sleeps in `poll` until a socket, the eventfd or the
/// earliest deadline needs it.
final class IOLoop: TaskExecutor, @unchecked Sendable {
    /// The DBusConnection* it drives (libdbus is thread-safe since 1.8; the pointer stays valid
    /// until the loop stops).
    let connection: OpaquePointer
    private let wakeFD: Int32
    /// The read interest of the connection's watches, polled by the loop as one descriptor; a
    /// thread that borrows the socket (`borrowSocket`) takes it out without waking the loop.
    private let epollFD: Int32
    /// The thread that borrowed the socket (`pthread_self`), 0 when none.
    private let borrower = Atomic<UInt>(0)
    /// True from the loop's announcing its sleep until it wakes: a caller checks it before taking
    /// any lock (`borrowSocket`), so that calls made while the loop is busy cost nothing more.
    private let mayBeIdle = Atomic<Bool>(false)
    /// What other threads hand the loop, and whether it sleeps in `poll` (see `LoopHandOff`).
    private let inbox = Mutex(LoopHandOff())
    /// Empty buffers for `runJobs`, `buildCalls` and `flushSends` to swap with the inbox's (loop
    /// thread only).
    private var spareJobs: [UnownedJob] = []
    private var spareCalls: [UnbuiltCall] = []
    private var spareSends: [OutgoingMessage] = []
    private var spareReceived: [OutgoingMessage] = []
    /// Replies whose tasks are resumed only once the loop is about to sleep (`resumeWhenIdle`),
    /// and how many iterations the oldest has waited (loop thread only).
    private var heldReplies: [HeldReply] = []
    private var heldFor = 0
    private let watches = Mutex<[LibdbusHandle]>([])
    private let timeouts = Mutex<[TimeoutEntry]>([])
    /// The deadline the loop will wake at, at the latest; writers with an earlier one must wake it.
    let plannedWake = Atomic<UInt64>(0)
    private let stopRequested = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    /// The loop thread's kernel id (0 until it runs): tests read its context switches in
    /// /proc/self/task/ID/status to see whether calls woke it.
    let kernelThreadID = Atomic<Int32>(0)
    /// The connection, kept alive by the loop until it stops. Strong on purpose: a `weak`
    /// reference would give the connection a refcount side table, and every retain and release
    /// of it (several per message) would take the runtime's slow path.
    private var keepAlive: (any IOLoopClient)?

    init(connection: OpaquePointer) {
        self.connection = connection
        self.wakeFD = cdbus_eventfd()
        self.epollFD = cdbus_epoll_create()
    }

    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    var isOnLoopThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }
    var isStopped: Bool { stopped.load(ordering: .acquiring) }
    /// False when the loop is surely awake (then `borrowSocket` would refuse); true may be stale.
    var mayLendSocket: Bool { mayBeIdle.load(ordering: .relaxed) && !isOnLoopThread }

    /// Wakes the loop out of `poll`. Nothing to do on the loop thread, nor while the loop is
    /// awake: it looks at everything again before it sleeps (`announceSleep`).
    func wake() {
        if isOnLoopThread { return }
        if inbox.withLock({ $0.takeSleeper() }) { cdbus_eventfd_signal(wakeFD) }
    }

    /// `wake` for news of incoming messages (libdbus's wake-up and dispatch-status callbacks): not
    /// needed on the thread that borrowed the socket, which pops them itself (`returnSocket` wakes
    /// the loop for what it leaves queued).
    func wakeForIncoming() {
        if borrower.load(ordering: .relaxed) == UInt(pthread_self()) { return }
        wake()
    }

    /// Wakes the loop if `deadline` is earlier than the one it is sleeping towards.
    func noteDeadline(_ deadline: UInt64) {
        let planned = plannedWake.load(ordering: .acquiring)
        if deadline < planned || planned <= monotonicNanoseconds() { wake() }
    }

    // MARK: TaskExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let (accepted, sleeper) = inbox.withLock { box -> (Bool, Bool) in
            guard !box.stopped else { return (false, false) }
            box.jobs.append(unowned)
            return (true, box.takeSleeper())
        }
        if !accepted {
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
        } else if sleeper && !isOnLoopThread {
            cdbus_eventfd_signal(wakeFD)
        }
    }

    /// Runs the queued jobs (loop thread). The queue and `spare` trade buffers, so a steady flow
    /// of jobs allocates nothing.
    ///
    /// A job may continue a task that queued a message from another thread a moment ago (it sent
    /// while the loop was awake, then moved onto this executor): the queued messages go out before
    /// the jobs run, or the task's next message, sent from this thread directly, would overtake
    /// it. While another thread is the direct sender (it owns the queue, `send`), the jobs wait
    /// for it to finish.
    private func runJobs() -> Bool {
        var ran = false
        while true {
            var batch = spareJobs
            spareJobs = []
            var queued = spareSends
            spareSends = []
            let blocked = inbox.withLock { box -> Bool in
                if box.jobs.isEmpty { return false }
                if box.directSender { return true }
                swap(&batch, &box.jobs)
                if !box.sends.isEmpty { swap(&queued, &box.sends) }
                return false
            }
            sendAll(&queued, on: connection)
            spareSends = queued
            if batch.isEmpty {
                spareJobs = batch
                // Blocked: the loop comes back to the jobs on its next turn (it does not sleep
                // with jobs queued); let the direct sender run meanwhile.
                if blocked { sched_yield() }
                return ran
            }
            ran = true
            let me = asUnownedTaskExecutor()
            for job in batch { job.runSynchronously(on: me) }
            batch.removeAll(keepingCapacity: true)
            spareJobs = batch
        }
    }

    // MARK: Calls built on the loop

    /// Hands the loop a call to register, build and send (`IOLoopClient.loopRegisterCalls`,
    /// `loopBuildCall`), in the order handed over, before it sleeps again (waking it if it sleeps);
    /// false when the loop has stopped. See `DBusConnection.callBuiltOnLoop`.
    func buildCall(_ call: UnbuiltCall) -> Bool {
        let (accepted, sleeper) = inbox.withLock { box -> (Bool, Bool) in
            guard !box.stopped else { return (false, false) }
            box.calls.append(call)
            return (true, box.takeSleeper())
        }
        if sleeper && !isOnLoopThread { cdbus_eventfd_signal(wakeFD) }
        return accepted
    }

    /// The call handed over under `serial`, taken back if the loop has not registered it yet (nil
    /// otherwise: then it is pending, or already over). The loop registers a batch under the same
    /// lock as it takes it (`buildCalls`), so a call is always in one of the two places.
    func withdrawCall(_ serial: UInt32) -> UnbuiltCall? {
        inbox.withLock { box in
            guard let i = box.calls.firstIndex(where: { $0.serial == serial }) else { return nil }
            return box.calls.remove(at: i)
        }
    }

    /// How many handed-over calls wait for the loop to take them (tests watch a held loop's queue).
    var handedOverCalls: Int { inbox.withLock { $0.calls.count } }

    /// Registers, builds and sends the calls other threads handed over (loop thread).
    private func buildCalls() -> Bool {
        var batch = spareCalls
        spareCalls = []
        inbox.withLock { box in
            guard !box.calls.isEmpty else { return }
            swap(&batch, &box.calls)
            keepAlive?.loopRegisterCalls(batch)
        }
        let built = !batch.isEmpty
        for call in batch { keepAlive?.loopBuildCall(call) }
        batch.removeAll(keepingCapacity: true)
        spareCalls = batch
        return built
    }

    // MARK: Sending

    /// Sends `message` (numbered, complete; the caller keeps its reference) on `connection`.
    ///
    /// libdbus writes a message inline in `dbus_connection_send`, holding the connection's lock
    /// during `sendmsg`; the loop holds the same lock while it reads and parses. A thread that
    /// sends while the loop is awake therefore contends with it: under a flow of calls from
    /// other threads (tasks of the global pool resumed by replies) that contention cost several
    /// futex waits and wakes per call. So a message from another thread goes straight out only
    /// while the loop sleeps in `poll` (the lock is free then); while the loop is awake it is
    /// queued, and the loop sends it before it sleeps again (`flushSends`).
    ///
    /// Threads that send while the loop sleeps do not contend with each other either: the first
    /// becomes the direct sender, and messages other threads send meanwhile are queued for it to
    /// send after its own (`LoopHandOff.directSender`; the loop flushes nothing while it is on). Pool
    /// threads resumed by a batch of replies used to meet on libdbus's lock here, a futex wait
    /// and wake for one call in ten of a pipelined caller.
    ///
    /// Order is kept: one thread at a time sends from the queue, in order, and the loop
    /// announces its sleep only with an empty queue or with a direct sender to empty it, so a
    /// thread's earlier queued message is out before its later direct one; a task that moves onto
    /// the loop's executor finds its queued messages sent before it runs (`runJobs`). Returns
    /// false when libdbus is out of memory (the caller's own direct send only; a queued message
    /// that then fails is dropped, and its call times out).
    func send(_ message: OpaquePointer, on connection: OpaquePointer) -> Bool {
        if !isOnLoopThread {
            let outgoing = OutgoingMessage(message)
            let queued = inbox.withLock { box -> Bool in
                guard !box.stopped else { return false }
                if box.sleeping && !box.directSender {
                    box.directSender = true
                    return false
                }
                box.sends.append(outgoing)
                return true
            }
            if queued { return true }
            outgoing.release()
            let sent = dbus_connection_send(connection, message, nil) != 0
            sendQueuedAsDirectSender(on: connection)
            return sent
        }
        return dbus_connection_send(connection, message, nil) != 0
    }

    /// The direct sender's duty once its own message is out: send what others queued meanwhile,
    /// until the queue is empty, then step down (no-op when the loop has stopped).
    private func sendQueuedAsDirectSender(on connection: OpaquePointer) {
        var batch: [OutgoingMessage] = []
        while true {
            inbox.withLock { box in
                if box.sends.isEmpty {
                    box.directSender = false
                } else {
                    swap(&batch, &box.sends)
                }
            }
            if batch.isEmpty { return }
            sendAll(&batch, on: connection)
        }
    }

    /// Sends the queued messages of `batch` in order on `connection` and empties `batch`
    /// (keeping its capacity).
    private func sendAll(_ batch: inout [OutgoingMessage], on connection: OpaquePointer) {
        for m in batch {
            _ = dbus_connection_send(connection, m.pointer, nil)
            m.release()
        }
        batch.removeAll(keepingCapacity: true)
    }

    /// Sends what other threads queued while the loop was awake (loop thread).
    private func flushSends() -> Bool {
        var batch = spareSends
        spareSends = []
        inbox.withLock { box in
            if !box.sends.isEmpty && !box.directSender { swap(&batch, &box.sends) }
        }
        let sent = !batch.isEmpty
        sendAll(&batch, on: connection)
        spareSends = batch
        return sent
    }

    // MARK: Reading on the caller's thread

    /// Lends the connection's socket to the calling thread, so that it can read the reply to its
    /// own call (`DBusConnection.readReplyHere`): the loop stops watching the socket — without
    /// being woken — until `returnSocket`, and neither reads nor routes messages meanwhile; the
    /// borrower pops what arrives, keeps its reply and hands everything else over (`handOver`),
    /// in order. Lent only while the loop sleeps with nothing queued and one socket to read
    /// (otherwise nil): a busy loop reads anyway. Returns the socket's descriptor to poll.
    func borrowSocket() -> Int32? {
        let me = UInt(pthread_self())
        if threadID.load(ordering: .relaxed) == me { return nil }
        return inbox.withLock { box -> Int32? in
            guard box.sleeping, !box.lent, !box.stopped, box.received.isEmpty, box.readFDs.count == 1 else { return nil }
            box.lent = true
            borrower.store(me, ordering: .relaxed)
            _ = cdbus_epoll_arm(epollFD, box.readFDs[0], 0)
            return box.readFDs[0]
        }
    }

    /// Gives the socket back (the borrower's thread, once): the loop watches it again, and is woken
    /// when libdbus holds messages the borrower left queued or output it could not write.
    func returnSocket() {
        let blind = inbox.withLock { box -> Bool in
            box.lent = false
            borrower.store(0, ordering: .relaxed)
            if !box.stopped { for fd in box.readFDs { _ = cdbus_epoll_arm(epollFD, fd, 1) } }
            // A loop that went to sleep while the socket was lent does not poll the epoll set.
            guard box.sleepsBlind else { return false }
            box.sleepsBlind = false
            return box.takeSleeper()
        }
        if blind {
            cdbus_eventfd_signal(wakeFD)
        } else if dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS
            || dbus_connection_has_messages_to_send(connection) != 0 {
            wake()
        }
    }

    /// A message the borrower popped that is not its reply: the loop routes it, in the order handed
    /// over, before it pops anything more itself. Takes over the caller's reference.
    func handOver(_ message: OpaquePointer) {
        let (accepted, sleeper) = inbox.withLock { box -> (Bool, Bool) in
            guard !box.stopped else { return (false, false) }
            box.received.append(OutgoingMessage(adopting: message))
            return (true, box.takeSleeper())
        }
        if !accepted {
            dbus_message_unref(message)
        } else if sleeper {
            cdbus_eventfd_signal(wakeFD)
        }
    }

    /// Routes the messages a borrower handed over (loop thread); also says whether the socket is
    /// lent, in which case the loop must not pop messages itself.
    private func routeHandedOver() -> (routed: Bool, lent: Bool) {
        var batch = spareReceived
        spareReceived = []
        let lent = inbox.withLock { box -> Bool in
            if !box.received.isEmpty { swap(&batch, &box.received) }
            return box.lent
        }
        let routed = !batch.isEmpty
        for m in batch {
            keepAlive?.loopHandle(m.pointer)
            m.release()
            _ = runJobs()
        }
        batch.removeAll(keepingCapacity: true)
        spareReceived = batch
        return (routed, lent)
    }

    // MARK: Replies to tasks that call again

    /// Resumes `continuation` with `result` once the loop is about to sleep, not at once (loop
    /// thread only). For the reply to a task of the global pool that was the connection's only
    /// call in flight: resumed at once, such a task (woken on another core) often makes its next
    /// call while the loop is still finishing this iteration, so it cannot borrow the socket
    /// (`DBusConnection.readReplyOnCaller`) and takes the thread hop again — one slow reply
    /// (longer than the caller's blocking budget) made every following call of a sequential caller
    /// pay two wake-ups until that race happened to go the other way. Delays the resumption by
    /// the rest of the loop's iteration (at most one more when it stays busy).
    func resumeWhenIdle(_ continuation: UnsafeContinuation<DBusMessage, any Error>, with result: Result<DBusMessage, any Error>) {
        if heldReplies.isEmpty { heldFor = 0 }
        heldReplies.append(HeldReply(continuation: continuation, result: result))
    }

    private func resumeHeldReplies() {
        if heldReplies.isEmpty { return }
        let batch = heldReplies
        heldReplies.removeAll(keepingCapacity: true)
        heldFor = 0
        for h in batch { h.continuation.resume(with: h.result) }
    }

    // MARK: Lifecycle

    /// Installs the libdbus callbacks and starts the thread, which keeps `client` alive until it stops.
    func start(client: any IOLoopClient) {
        self.keepAlive = client
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(connection, ioAddWatch, ioRemoveWatch, ioToggleWatch, me, nil)
        dbus_connection_set_timeout_functions(connection, ioAddTimeout, ioRemoveTimeout, ioToggleTimeout, me, nil)
        dbus_connection_set_wakeup_main_function(connection, ioWakeup, me, nil)
        dbus_connection_set_dispatch_status_function(connection, ioDispatchStatus, me, nil)
        DetachedThread.start("the D-Bus I/O thread") { self.run() }
    }

    /// Asks the loop to close the connection and stop; returns at once.
    func stop() {
        if stopped.load(ordering: .acquiring) { return }
        stopRequested.store(true, ordering: .releasing)
        cdbus_eventfd_signal(wakeFD)
    }

    // MARK: The loop

    /// Routes every queued incoming message. Popping and routing them here (as a C main loop
    /// does) skips libdbus's dispatch machinery — filter-list copies, its object tree — which
    /// this binding replaces anyway; `org.freedesktop.DBus.Peer` is answered by the connection.
    private func dispatchAll() -> Bool {
        var did = false
        while let m = dbus_connection_pop_message(connection) {
            keepAlive?.loopHandle(m)
            dbus_message_unref(m)
            did = true
            _ = runJobs()
        }
        return did
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        kernelThreadID.store(cdbus_gettid(), ordering: .releasing)
        cdbus_name_thread("dbus-io")   // what top -H, perf and gdb show for it
        var pollfds: [pollfd] = []
        var polled: [OpaquePointer?] = []
        var readFDs: [Int32] = []
        var readWatches: [OpaquePointer] = []
        while true {
            // A held reply waits for the loop's sleep at most one more iteration (a loop kept busy
            // by other work must not keep a caller waiting).
            if !heldReplies.isEmpty {
                if heldFor > 0 { resumeHeldReplies() } else { heldFor += 1 }
            }
            var busy = runJobs()
            busy = buildCalls() || busy
            busy = flushSends() || busy
            let (routed, lent) = routeHandedOver()
            busy = routed || busy
            if !lent { busy = dispatchAll() || busy }
            // The clock is read only when some deadline exists (a service answering calls has none).
            var now: UInt64?
            var deadline = UInt64.max
            if let client = keepAlive, client.loopEarliestDeadline != UInt64.max {
                let t = monotonicNanoseconds()
                now = t
                deadline = client.loopCheckDeadlines(now: t)
            }
            if stopRequested.load(ordering: .acquiring) { break }
            if busy { continue }
            let planned = plannedWake.load(ordering: .acquiring)
            if planned != UInt64.max, planned > (now ?? monotonicNanoseconds()) { deadline = min(deadline, planned) }
            plannedWake.store(deadline, ordering: .releasing)
            // Re-check work that may have arrived while computing, else say the loop sleeps:
            // from now on `wake` signals the eventfd. Announced before the watches are read, so
            // a watch toggled meanwhile wakes the poll below at once.
            let sleeps = inbox.withLock { box -> Bool in
                let sleeps = box.announceSleep()
                mayBeIdle.store(sleeps, ordering: .relaxed)
                return sleeps
            }
            if !sleeps { continue }
            // A call or libdbus timeout registered while the deadlines above were computed did not
            // wake the loop (it was awake then): take them into account now.
            if let client = keepAlive { deadline = min(deadline, client.loopEarliestDeadline) }
            deadline = min(deadline, timeouts.withLock { ts in ts.reduce(UInt64.max) { min($0, $1.deadline) } })
            plannedWake.store(deadline, ordering: .releasing)

            // Read interest goes through the epoll set (so that a borrower can take it away),
            // write interest straight into the poll list.
            pollfds.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            readFDs.removeAll(keepingCapacity: true)
            readWatches.removeAll(keepingCapacity: true)
            pollfds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            polled.append(nil)
            pollfds.append(pollfd(fd: epollFD, events: 0, revents: 0))
            polled.append(nil)
            for h in watches.withLock({ $0 }) where dbus_watch_get_enabled(h.pointer) != 0 {
                let w = h.pointer
                let flags = dbus_watch_get_flags(w)
                if flags & cdbus_watch_readable() != 0 {
                    let fd = dbus_watch_get_unix_fd(w)
                    if !readFDs.contains(fd) { readFDs.append(fd) }
                    readWatches.append(w)
                }
                if flags & cdbus_watch_writable() != 0 {
                    pollfds.append(pollfd(fd: dbus_watch_get_unix_fd(w), events: Int16(POLLOUT), revents: 0))
                    polled.append(w)
                }
            }
            // While the socket is lent the epoll set is left out: a hang-up, which a disarmed
            // descriptor still reports, would otherwise wake the loop again and again.
            let lentAtSleep = inbox.withLock { box -> Bool in
                box.setReadInterest(readFDs, epoll: epollFD)
                box.sleepsBlind = box.lent
                return box.lent
            }
            pollfds[1].events = lentAtSleep ? 0 : Int16(POLLIN)
            let timeoutMs: Int32
            if deadline == UInt64.max {
                timeoutMs = -1
            } else {
                let after = monotonicNanoseconds()
                timeoutMs = deadline <= after ? 0 : Int32(min((deadline - after + 999_999) / 1_000_000, 86_400_000))
            }
            // Held replies go out now, the loop's sleep announced and its poll list made: their
            // tasks' next calls can borrow the socket (`borrowSocket`) instead of finding the loop
            // awake. A resumed task that queued a job here (it should not: those tasks have no
            // executor preference) took the sleeper without a wake-up: then do not block.
            var pollTimeout = timeoutMs
            if !heldReplies.isEmpty {
                resumeHeldReplies()
                if inbox.withLock({ !$0.sleeping }) { pollTimeout = 0 }
            }
            let n = poll(&pollfds, nfds_t(pollfds.count), pollTimeout)
            let lentNow = inbox.withLock { box -> Bool in
                box.sleeping = false
                box.sleepsBlind = false
                mayBeIdle.store(false, ordering: .relaxed)
                return box.lent
            }
            if n > 0 {
                if pollfds[0].revents != 0 { cdbus_eventfd_drain(wakeFD) }
                // The socket is readable (or hung up: reading finds out). Not while it is lent.
                if pollfds[1].revents != 0 && !lentNow {
                    for w in readWatches where watches.withLock({ $0.contains(LibdbusHandle(pointer: w)) }) {
                        _ = dbus_watch_handle(w, cdbus_watch_readable())
                    }
                }
                for i in 2..<pollfds.count where pollfds[i].revents != 0 {
                    guard let w = polled[i], watches.withLock({ $0.contains(LibdbusHandle(pointer: w)) }) else { continue }
                    let r = pollfds[i].revents
                    var flags: UInt32 = 0
                    if r & Int16(POLLIN) != 0 { flags |= cdbus_watch_readable() }
                    if r & Int16(POLLOUT) != 0 { flags |= cdbus_watch_writable() }
                    if r & Int16(POLLERR) != 0 { flags |= cdbus_watch_error() }
                    if r & Int16(POLLHUP) != 0 { flags |= cdbus_watch_hangup() }
                    _ = dbus_watch_handle(w, flags)
                }
            }
            handleLibdbusTimeouts()
        }
        shutdown()
    }

    private func handleLibdbusTimeouts() {
        if timeouts.withLock({ $0.isEmpty }) { return }
        let now = monotonicNanoseconds()
        let due = timeouts.withLock { ts in ts.filter { $0.deadline <= now }.map(\.timeout) }
        for h in due {
            let t = h.pointer
            guard timeouts.withLock({ ts in ts.contains { $0.timeout == h } }) else { continue }
            _ = dbus_timeout_handle(t)
            timeouts.withLock { ts in
                if let i = ts.firstIndex(where: { $0.timeout == h }) {
                    ts[i].deadline = now + UInt64(max(dbus_timeout_get_interval(t), 1)) * 1_000_000
                }
            }
        }
    }

    private func shutdown() {
        dbus_connection_close(connection)
        _ = routeHandedOver()
        _ = dispatchAll()
        keepAlive?.loopDidStop()
        resumeHeldReplies()
        _ = runJobs()
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        stopped.store(true, ordering: .releasing)
        _ = runJobs()
        // From now on jobs go to the global executor and sends meet the closed connection (which
        // drops them); hand over any jobs that raced in, drop any queued sends.
        let (leftovers, unsent, unbuilt) = inbox.withLock { box -> ([UnownedJob], [OutgoingMessage], [UnbuiltCall]) in
            box.stopped = true
            defer { box.jobs = []; box.calls = []; box.sends = []; box.received = [] }
            return (box.jobs, box.sends + box.received, box.calls)
        }
        for m in unsent { m.release() }
        for call in unbuilt {
            call.call.resume(.failure(DBusError.closed(calling: call.call.target)))
        }
        for job in leftovers { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        dbus_connection_unref(connection)
        // wakeFD stays open until deinit: close()/wake() may still signal it, and a closed
        // number could already belong to another connection's socket.
        keepAlive = nil
    }

    // MARK: libdbus callbacks (called with the connection lock held: never call connection APIs here)

    fileprivate func addWatch(_ w: OpaquePointer) {
        watches.withLock { $0.append(LibdbusHandle(pointer: w)) }
        wake()
    }
    fileprivate func removeWatch(_ w: OpaquePointer) {
        watches.withLock { $0.removeAll { $0.pointer == w } }
        wake()
    }
    fileprivate func addTimeout(_ t: OpaquePointer) {
        let d = monotonicNanoseconds() + UInt64(max(dbus_timeout_get_interval(t), 0)) * 1_000_000
        timeouts.withLock { ts in
            ts.removeAll { $0.timeout.pointer == t }
            if dbus_timeout_get_enabled(t) != 0 { ts.append(TimeoutEntry(timeout: LibdbusHandle(pointer: t), deadline: d)) }
        }
        wake()
    }
    fileprivate func removeTimeout(_ t: OpaquePointer) {
        timeouts.withLock { $0.removeAll { $0.timeout.pointer == t } }
    }
}

private func loop(_ data: UnsafeMutableRawPointer?) -> IOLoop {
    Unmanaged<IOLoop>.fromOpaque(data!).takeUnretainedValue()
}

private let ioAddWatch: DBusAddWatchFunction = { w, data in
    loop(data).addWatch(w!)
    return 1
}
private let ioRemoveWatch: DBusRemoveWatchFunction = { w, data in loop(data).removeWatch(w!) }
private let ioToggleWatch: DBusWatchToggledFunction = { _, data in loop(data).wake() }
private let ioAddTimeout: DBusAddTimeoutFunction = { t, data in
    loop(data).addTimeout(t!)
    return 1
}
private let ioRemoveTimeout: DBusRemoveTimeoutFunction = { t, data in loop(data).removeTimeout(t!) }
private let ioToggleTimeout: DBusTimeoutToggledFunction = { t, data in loop(data).addTimeout(t!) }
private let ioWakeup: DBusWakeupMainFunction = { data in
    // Called on every message queued in or out: no retain/release of the loop for it.
    Unmanaged<IOLoop>.fromOpaque(data!)._withUnsafeGuaranteedRef { $0.wakeForIncoming() }
}
private let ioDispatchStatus: DBusDispatchStatusFunction = { _, status, data in
    if status == DBUS_DISPATCH_DATA_REMAINS { loop(data).wakeForIncoming() }
}
