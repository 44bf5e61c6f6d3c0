import Synchronization
internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// A listening D-Bus server for peer-to-peer connections (no message bus between the two ends).
///
/// Each accepted peer becomes a `DBusConnection` with its own I/O thread, exactly like a bus
/// connection except that it has no unique name and its messages carry no sender. Security:
/// only the EXTERNAL mechanism is offered (the kernel's `SO_PEERCRED`, nothing the peer claims),
/// and a peer is let in only if `admits` accepts its credentials — a peer of another user never
/// is. `admits` is asked as the peer is accepted (a refused one is closed at once: no thread, not
/// a byte read) and again as it authenticates.
public final class DBusServer: Sendable {
    /// The address peers connect to (`unix:path=…,guid=…` or `unix:abstract=…,guid=…`).
    public let address: String
    private let loop: ServerLoop

    /// Listens at `address` (for instance `unix:dir=/run/user/1000` for a fresh socket in that
    /// folder, which libdbus names at random).
    /// - Parameters:
    ///   - admits: decides from the peer's kernel credentials whether it may connect (on the
    ///     server's thread as it is accepted, then on its connection's as it authenticates).
    ///   - accepted: receives each admitted connection on the server's thread, before anything of
    ///     it is read (the peer's authentication included): what it exports there answers the
    ///     peer's first call, however soon the peer makes it. The connection starts reading when
    ///     `accepted` returns.
    public init(
        listeningAt address: String,
        admits: @escaping @Sendable (Credentials) -> Bool,
        accepted: @escaping @Sendable (DBusConnection) -> Void
    ) throws(DBusError) {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let server = address.withCString({ dbus_server_listen($0, &err) }) else {
            throw DBusConnection.error(from: &err, fallback: "cannot listen on '\(address)'")
        }
        let external = strdup("EXTERNAL")
        defer { free(external) }
        var mechanisms: [UnsafePointer<CChar>?] = [UnsafePointer(external), nil]
        _ = mechanisms.withUnsafeMutableBufferPointer { dbus_server_set_auth_mechanisms(server, $0.baseAddress) }
        let listening = dbus_server_get_address(server)
        self.address = listening.map { String(cString: $0) } ?? address
        dbus_free(listening)
        self.loop = ServerLoop(server: server, filter: PeerFilter(admits: admits), accepted: accepted)
        loop.start()
    }

    /// Stops listening; connections already accepted stay open. Idempotent.
    public func close() { loop.stop() }

    deinit { loop.stop() }
}

extension DBusConnection {
    /// The kernel's record of the process at the other end of this connection's socket
    /// (`SO_PEERCRED`): the peer when it connected, or — on the connecting side of a peer-to-peer
    /// connection — the server when it started listening. On a bus connection that is the bus.
    /// Nil once the connection is closed.
    public var peerCredentials: Credentials? { Self.peerCredentials(of: raw) }

    /// `peerCredentials` of a libdbus connection (also one not wrapped yet, as a server accepts it).
    static func peerCredentials(of connection: OpaquePointer) -> Credentials? {
        var fd: Int32 = -1
        guard dbus_connection_get_socket(connection, &fd) != 0, fd >= 0 else { return nil }
        var pid: Int32 = 0
        var uid: UInt32 = 0
        guard cdbus_peer_credentials(fd, &pid, &uid) == 0, pid > 0 else { return nil }
        return Credentials(processID: UInt32(pid), userID: uid, securityLabel: nil)
    }
}

/// The `admits` decision, reachable from libdbus's C callback.
private final class PeerFilter: Sendable {
    let admits: @Sendable (Credentials) -> Bool
    init(admits: @escaping @Sendable (Credentials) -> Bool) { self.admits = admits }

    /// Whether the peer at the other end of `connection`'s socket may in: the kernel's record of
    /// it (`SO_PEERCRED`, set when it connected), of this process's user, and `admits`.
    func admits(_ connection: OpaquePointer) -> Bool {
        guard let peer = DBusConnection.peerCredentials(of: connection), peer.userID == getuid() else { return false }
        return admits(peer)
    }
}

/// The server's thread: polls the listening socket (and an eventfd to stop), and hands each new
/// peer to a `DBusConnection`.
private final class ServerLoop: @unchecked Sendable {
    let server: OpaquePointer
    let filter: PeerFilter
    let accepted: @Sendable (DBusConnection) -> Void
    private let wakeFD = cdbus_eventfd()
    private let stopRequested = Atomic<Bool>(false)
    /// The server's watches; touched by libdbus's callbacks, which run on the server's thread
    /// (or in `init`/`stop`, before it starts and after it ends).
    var watches: [OpaquePointer] = []

    init(server: OpaquePointer, filter: PeerFilter, accepted: @escaping @Sendable (DBusConnection) -> Void) {
        self.server = server
        self.filter = filter
        self.accepted = accepted
    }

    func start() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_server_set_watch_functions(server, { watch, data in
            let loop = Unmanaged<ServerLoop>.fromOpaque(data!).takeUnretainedValue()
            if let watch { loop.watches.append(watch) }
            return 1
        }, { watch, data in
            let loop = Unmanaged<ServerLoop>.fromOpaque(data!).takeUnretainedValue()
            loop.watches.removeAll { $0 == watch }
        }, nil, me, nil)
        dbus_server_set_new_connection_function(server, { _, connection, data in
            guard let connection, let data else { return }
            let loop = Unmanaged<ServerLoop>.fromOpaque(data).takeUnretainedValue()
            loop.take(connection)
        }, me, nil)
        DetachedThread.start("the D-Bus server thread") { self.run() }
    }

    func stop() {
        if stopRequested.exchange(true, ordering: .acquiringAndReleasing) { return }
        cdbus_eventfd_signal(wakeFD)
    }

    private func take(_ connection: OpaquePointer) {
        // Asked first as it is accepted (the kernel knows the peer from its connect): a refused
        // peer costs no thread and is never read. Not referenced, libdbus closes it on return.
        guard filter.admits(connection) else { return dbus_connection_close(connection) }
        // Asked again as it authenticates, in place of EXTERNAL's own user check.
        let decision = Unmanaged.passRetained(filter).toOpaque()
        dbus_connection_set_unix_user_function(connection, { connection, uid, data in
            guard let connection, let data, uid == getuid() else { return 0 }
            return Unmanaged<PeerFilter>.fromOpaque(data).takeUnretainedValue().admits(connection) ? 1 : 0
        }, decision, { data in
            if let data { Unmanaged<PeerFilter>.fromOpaque(data).release() }
        })
        let peer = DBusConnection(accepted: connection)
        accepted(peer)
        peer.startReading()
    }

    private func run() {
        cdbus_name_thread("dbus-server")
        while !stopRequested.load(ordering: .acquiring) {
            var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let polled = watches.filter { dbus_watch_get_enabled($0) != 0 }
            for w in polled { fds.append(pollfd(fd: dbus_watch_get_unix_fd(w), events: Int16(POLLIN), revents: 0)) }
            guard poll(&fds, nfds_t(fds.count), -1) > 0 else { continue }
            for (i, w) in polled.enumerated() where fds[i + 1].revents != 0 && watches.contains(w) {
                _ = dbus_watch_handle(w, cdbus_watch_readable())
            }
        }
        dbus_server_disconnect(server)
        dbus_server_set_new_connection_function(server, nil, nil, nil)
        dbus_server_set_watch_functions(server, nil, nil, nil, nil, nil)
        dbus_server_unref(server)
    }

    // Closed only when nothing can signal it any more: `stop` may still write to it after the
    // thread has ended, and a closed number could by then belong to another socket.
    deinit { Glibc.close(wakeFD) }
}
