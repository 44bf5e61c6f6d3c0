import CourierNames
import DBus
import CourierProtocol
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
/// is the broker's). A link is then made the admitted instance's in two steps, so that holding a
/// socket with the app's pid is not enough: over the link, `Attach(bundle_id)` — the pid must have
/// been admitted as that bundle id — answers a one-time challenge; on the bus, the instance's
/// admitted unique name must hand it back (`org.courier.Broker1.ConfirmLink`). Only the process
/// that holds both the link and the app's own bus connection can do both. The link then carries
/// that instance's deliveries only, each after the receiver check (`GuardedDeliverer`). A link not
/// confirmed within `attachDeadline` is closed; at most `maximumUnconfirmed` wait at once.
final class AppLinks: Sendable {
    static let attachDeadline: Duration = .seconds(5)
    /// Links connected but not confirmed, at most: each holds an I/O thread until it is confirmed
    /// or its deadline passes, so an app that keeps connecting cannot pile them up.
    static let maximumUnconfirmed = 16

    private let server: DBusServer
    private let receivers: ReceiverGuard
    private let logger: Logger
    private let state = Mutex(State())
    /// The folder made for the socket when the user has no runtime folder (removed by `stop`).
    private let madeFolder: String?

    private struct State {
        /// Admitted unique name → its confirmed link.
        var attached: [String: DBusConnection] = [:]
        /// Links connected and not confirmed yet.
        var waiting: [ObjectIdentifier: DBusConnection] = [:]
        /// Challenge → the link that asked for it and the admission it stands for.
        var challenges: [String: Challenge] = [:]
    }

    private struct Challenge {
        let link: ObjectIdentifier
        let bundleID: String
        let uniqueName: String
        let pid: Int32
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
        let accepted = Mutex<(@Sendable (DBusConnection) -> Void)?>(nil)
        do {
            server = try DBusServer(listeningAt: "unix:dir=\(folder)", admits: admitted) { link in
                // Before `init` ends, or after this object is gone: nobody to serve it.
                guard let serve = accepted.withLock({ $0 }) else { return link.close() }
                serve(link)
            }
        } catch {
            if made { try? FileManager.default.removeItem(atPath: folder) }
            throw CourierError(.bus, "cannot listen for direct app links in \(folder): \(error.message)")
        }
        accepted.withLock { $0 = { [weak self] link in if let self { self.serve(link) } else { link.close() } } }
    }

    /// The open link of the instance admitted as `uniqueName`, if it confirmed one.
    func connection(for uniqueName: String) -> DBusConnection? {
        guard let link = state.withLock({ $0.attached[uniqueName] }), link.isConnected else { return nil }
        return link
    }

    /// The unique names with a confirmed link.
    var linked: Set<String> { state.withLock { Set($0.attached.keys) } }

    /// The instance left the bus: its link goes too (the process may live on without its app).
    func uniqueNameVanished(_ uniqueName: String) {
        state.withLock { $0.attached.removeValue(forKey: uniqueName) }?.close()
    }

    func stop() {
        server.close()
        let open = state.withLock { state in
            defer { state = State() }
            return Array(state.attached.values) + Array(state.waiting.values)
        }
        for link in open { link.close() }
        if let madeFolder { try? FileManager.default.removeItem(atPath: madeFolder) }
    }

    /// `ConfirmLink(challenge)` from `sender` on the bus: the link that received `challenge` becomes
    /// the one of the admitted instance `sender`, if `sender` is the instance the challenge was
    /// made for and it is still admitted.
    func confirm(_ challenge: String, from sender: String) throws(CourierError) {
        let (found, link) = state.withLock { state -> (Challenge?, DBusConnection?) in
            guard let found = state.challenges[challenge], found.uniqueName == sender else { return (nil, nil) }
            state.challenges[challenge] = nil
            return (found, state.waiting[found.link])
        }
        guard let found else {
            logger.warning("direct link refused: \(sender) confirmed a link challenge that was not made for it")
            throw CourierError(.notPermitted, "no link is waiting for \(sender) with this challenge: confirm the challenge your own link received from Attach, from the bus connection that checked in")
        }
        guard let link, link.isConnected, receivers.admittedInstance(bundleID: found.bundleID, pid: found.pid) == sender else {
            throw CourierError(.notPermitted, "the link of \(found.bundleID) closed, or \(sender) is no longer admitted as \(found.bundleID); check in again")
        }
        let attached = state.withLock { state -> Bool in
            if let current = state.attached[sender], current.isConnected { return false }
            state.waiting[found.link] = nil
            state.attached[sender] = link
            return true
        }
        guard attached else {
            throw CourierError(.notPermitted, "\(found.bundleID) (\(sender)) already has a direct link; a second one is refused")
        }
        // The instance may have left the bus meanwhile (`uniqueNameVanished` ran first): undo.
        if receivers.admittedInstance(bundleID: found.bundleID, pid: found.pid) != sender {
            uniqueNameVanished(sender)
            throw CourierError(.notPermitted, "\(sender) left the bus while its link was confirmed")
        }
        logger.debug("direct link attached: \(found.bundleID) (\(sender), pid \(found.pid))")
    }

    /// A peer was accepted (its pid is an admitted app's): it may ask for a challenge, and must be
    /// confirmed within `attachDeadline`.
    private func serve(_ link: DBusConnection) {
        let id = ObjectIdentifier(link)
        let admitted = state.withLock { state -> Bool in
            guard state.waiting.count < Self.maximumUnconfirmed else { return false }
            state.waiting[id] = link
            return true
        }
        guard admitted else {
            logger.warning("direct link refused: \(Self.maximumUnconfirmed) links are waiting to be confirmed already")
            return link.close()
        }
        do {
            try link.export([BrokerLink1.interface.serving([
                // Weak: the link holds this method, and must not keep itself (and its descriptors) alive.
                BrokerLink1.attach.serving { [self, weak link] call in
                    let bundleID = try call.arguments.decode(String.self, at: 0)
                    guard let link else { throw DBusError.disconnected("the link closed") }
                    return [.string(try challenge(for: link, as: bundleID))]
                },
            ])], at: Broker1.objectPath)
        } catch {
            state.withLock { _ = $0.waiting.removeValue(forKey: id) }
            return link.close()
        }
        Task { [self, weak link] in
            try? await Task.sleep(for: Self.attachDeadline)
            if let link, state.withLock({ $0.waiting[id] != nil }) { link.close() }
        }
        Task { [self] in
            await link.waitUntilDisconnected()
            state.withLock { state in
                state.waiting[id] = nil
                state.challenges = state.challenges.filter { $0.value.link != id }
                if let name = state.attached.first(where: { $0.value === link })?.key { state.attached[name] = nil }
            }
        }
    }

    /// `Attach(bundle_id) → (challenge)` on a waiting link: only for a bundle id the link's own
    /// pid was admitted as.
    private func challenge(for link: DBusConnection, as bundleID: String) throws(DBusError) -> String {
        let pid = link.peerCredentials?.processID.map { Int32(bitPattern: $0) }
        guard let pid, let uniqueName = receivers.admittedInstance(bundleID: bundleID, pid: pid) else {
            logger.warning("direct link refused: pid \(pid.map(String.init) ?? "?") attached as \(bundleID), which it was not admitted as at CheckIn")
            throw CourierError(.notPermitted, "this process (pid \(pid.map(String.init) ?? "?")) did not check in as \(bundleID); a link carries only the deliveries of the app its own process checked in as").dbusError
        }
        var generator = SystemRandomNumberGenerator()   // getrandom(2)
        let challenge = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.joined(separator: "-")
        let id = ObjectIdentifier(link)
        let made = state.withLock { state -> Bool in
            guard state.waiting[id] != nil else { return false }
            state.challenges[challenge] = Challenge(link: id, bundleID: bundleID, uniqueName: uniqueName, pid: pid)
            return true
        }
        guard made else { throw CourierError(.notPermitted, "this link is already attached").dbusError }
        return challenge
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
