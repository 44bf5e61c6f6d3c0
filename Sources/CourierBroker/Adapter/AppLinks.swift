import CourierNames
import DBus
import Foundation
import Logging
import Synchronization

/// Direct broker–app links: a peer-to-peer D-Bus connection per running app, over which the
/// broker delivers `org.courier.Application1.OpenURL` instead of through the bus.
///
/// Why: a delivery through the bus is four messages for the dbus-daemon to read, check and route
/// (broker → daemon → app → daemon → broker); over a link it is two, with no daemon between. The
/// bus stays the public contract: callers, `CheckIn`, lifecycle calls and every delivery to an app
/// without a link (an app not built on the Courier library, an app whose link closed) go through
/// it as before.
///
/// Security (docs/security.md, "Direct links"): the server listens on a socket in the user's
/// runtime folder (mode 0700) and speaks only EXTERNAL, so the kernel — not the peer — says who
/// connects. A peer is let in only if its pid belongs to an app admitted at `CheckIn` (and its uid
/// is the broker's); it then has to `Attach` as a bundle id that very process was admitted as, and
/// the link carries that admission's deliveries only. The receiver check runs before each
/// delivery as on the bus (`GuardedDeliverer`). A peer that does not attach within
/// `attachDeadline` is disconnected.
final class AppLinks: Sendable {
    static let interface: InterfaceName = "org.courier.BrokerLink1"
    static let attachDeadline: Duration = .seconds(5)
    /// Links connected but not attached, at most: each holds an I/O thread until it attaches or
    /// its deadline passes, so a process that keeps connecting cannot pile them up.
    static let maximumUnattached = 16

    private let server: DBusServer
    private let receivers: ReceiverGuard
    private let logger: Logger
    private let state = Mutex(State())
    /// The folder made for the socket when the user has no runtime folder (removed by `stop`).
    private let madeFolder: String?

    private struct State {
        /// Admitted unique name → its link.
        var attached: [String: DBusConnection] = [:]
        /// Links connected and not attached yet.
        var waiting: Set<ObjectIdentifier> = []

        func isAttached(_ link: DBusConnection) -> Bool { attached.values.contains { $0 === link } }
    }

    /// The address apps receive in `CheckIn`'s answer (`link-address`).
    var address: String { server.address }

    init(receivers: ReceiverGuard, logger: Logger) throws(CourierError) {
        self.receivers = receivers
        self.logger = logger
        let (folder, made) = try Self.socketFolder()
        self.madeFolder = made ? folder : nil
        let admitted = { @Sendable (peer: Credentials) -> Bool in
            guard let pid = peer.processID else { return false }
            return receivers.admittedProcesses()[Int32(bitPattern: pid)] != nil
        }
        let accepted = Mutex<((DBusConnection) -> Void)?>(nil)
        do {
            server = try DBusServer(listeningAt: "unix:dir=\(folder)", admits: admitted) { link in
                accepted.withLock { $0 }?(link)
            }
        } catch {
            if made { try? FileManager.default.removeItem(atPath: folder) }
            throw CourierError(.bus, "cannot listen for direct app links in \(folder): \(error.message)")
        }
        accepted.withLock { $0 = { [weak self] link in self?.serve(link) } }
    }

    /// The link to the instance admitted as `uniqueName`, if it attached one and it is open.
    func connection(for uniqueName: String) -> DBusConnection? {
        state.withLock { $0.attached[uniqueName] }
    }

    /// The unique names with an attached link.
    var linked: Set<String> { state.withLock { Set($0.attached.keys) } }

    /// The instance left the bus: its link goes too (the process may live on without its app).
    func uniqueNameVanished(_ uniqueName: String) {
        state.withLock { $0.attached.removeValue(forKey: uniqueName) }?.close()
    }

    func stop() {
        server.close()
        let open = state.withLock { state in
            defer { state.attached = [:] }
            return Array(state.attached.values)
        }
        for link in open { link.close() }
        if let madeFolder { try? FileManager.default.removeItem(atPath: madeFolder) }
    }

    /// A peer connected (its credentials are checked while it authenticates): it may attach, once,
    /// within `attachDeadline`.
    private func serve(_ link: DBusConnection) {
        let id = ObjectIdentifier(link)
        let admitted = state.withLock { state -> Bool in
            guard state.waiting.count < Self.maximumUnattached else { return false }
            state.waiting.insert(id)
            return true
        }
        guard admitted else {
            logger.warning("direct link refused: \(Self.maximumUnattached) links are waiting to attach already")
            return link.close()
        }
        do {
            try link.export([DBusInterface(Self.interface, methods: [
                // Weak: the link holds this method, and must not keep itself (and its descriptors) alive.
                DBusMethod("Attach", arguments: "s", argumentNames: ["bundle_id"]) { [self, weak link] call in
                    let bundleID = try call.arguments.decode(String.self, at: 0)
                    guard let link else { return [] }
                    try attach(link, as: bundleID)
                    return []
                },
            ])], at: BrokerNames.objectPath)
        } catch {
            state.withLock { _ = $0.waiting.remove(id) }
            return link.close()
        }
        Task { [self, weak link] in
            try? await Task.sleep(for: Self.attachDeadline)
            if let link, state.withLock({ $0.waiting.contains(id) }) { link.close() }
        }
        Task { [self] in
            await link.waitUntilDisconnected()
            state.withLock { state in
                state.waiting.remove(id)
                if let name = state.attached.first(where: { $0.value === link })?.key { state.attached[name] = nil }
            }
        }
    }

    private func attach(_ link: DBusConnection, as bundleID: String) throws(DBusError) {
        let pid = link.peerCredentials?.processID.map { Int32(bitPattern: $0) }
        guard let pid, let uniqueName = receivers.admittedInstance(bundleID: bundleID, pid: pid) else {
            logger.warning("direct link refused: pid \(pid.map(String.init) ?? "?") attached as \(bundleID), which it was not admitted as at CheckIn")
            throw CourierError(.notPermitted, "this process (pid \(pid.map(String.init) ?? "?")) did not check in as \(bundleID); a link carries only the deliveries of the app its own process checked in as").dbusError
        }
        let (wasWaiting, replaced) = state.withLock { state -> (Bool, DBusConnection?) in
            guard state.waiting.remove(ObjectIdentifier(link)) != nil else { return (false, nil) }
            defer { state.attached[uniqueName] = link }
            return (true, state.attached[uniqueName])
        }
        guard wasWaiting else { throw CourierError(.notPermitted, "this link is already attached").dbusError }
        replaced?.close()
        logger.debug("direct link attached: \(bundleID) (\(uniqueName), pid \(pid))")
    }

    /// `$XDG_RUNTIME_DIR` (the user's own, mode 0700), else a fresh 0700 folder in the temporary
    /// folder; the second value says whether it was made here.
    private static func socketFolder() throws(CourierError) -> (String, Bool) {
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            var info = stat()
            if stat(runtime, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 {
                return (runtime, false)
            }
        }
        let temporary = FileManager.default.temporaryDirectory.path
        var template = Array((temporary + "/courier-links-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CourierError(.bus, "cannot make a folder for direct app links in \(temporary): \(String(cString: strerror(errno)))")
        }
        return (String(cString: made), true)
    }
}
