import Foundation
import Logging
import NIOCore
import Synchronization

/// Answers a multicast announcement the way protocol v2 (section 3.1) prefers: `POST
/// /api/localsend/v2/register` with this device's description, over HTTPS or HTTP as the
/// announcer said, to the address the datagram came from and the port it announced. The caller
/// falls back to a multicast answer when this returns false.
///
/// An announcement is one unauthenticated UDP datagram, so answering it must not make this device
/// a tool for whoever sends one: the request goes only to an address on one of the subnets of the
/// interfaces discovery joined (never to an address a datagram merely names), at most one at a
/// time per address and `maximumInFlight` in all, with a short timeout; anything beyond that gets
/// the multicast answer, which costs one datagram on the local link.
final class RegisterReplier: Sendable {
    let identity: NearbyIdentity
    let device: NearbyDevice
    let logger: Logger
    let timeout: TimeAmount
    let maximumInFlight: Int
    private let inFlight = Mutex<Set<String>>([])

    init(identity: NearbyIdentity, device: NearbyDevice, logger: Logger, timeout: TimeAmount = .seconds(3), maximumInFlight: Int = 8) {
        self.identity = identity
        self.device = device
        self.logger = logger
        self.timeout = timeout
        self.maximumInFlight = maximumInFlight
    }

    /// Sends `register` to `peer` at `address`; true when it answered 200.
    func register(with peer: NearbyDevice, at address: String, subnets: [Subnet]) async -> Bool {
        guard subnets.contains(where: { $0.contains(address) }) else {
            logger.debug("nearby: announcement from \(address), outside this device's subnets: answered by multicast only")
            return false
        }
        let admitted = inFlight.withLock { addresses in
            guard addresses.count < maximumInFlight, addresses.insert(address).inserted else { return false }
            return true
        }
        guard admitted else { return false }
        defer { _ = inFlight.withLock { $0.remove(address) } }

        let port = peer.port.flatMap { (1...65535).contains($0) ? $0 : nil } ?? NearbyProtocol.defaultPort
        let usesTLS = !peer.servesPlainHTTP
        let client = NearbyClient(identity: identity, host: address, port: port, expectedFingerprint: usesTLS ? peer.fingerprint : nil, usesTLS: usesTLS)
        do {
            let body = try JSONEncoder().encode(device.announcing(nil))
            let response = try await client.request(.POST, NearbyProtocol.Route.register.path(NearbyProtocol.API(announcedVersion: peer.version)), body: .json(body), timeout: timeout)
            guard response.status == 200 else {
                logger.debug("nearby: register to \(peer.alias.debugDescription) at \(address):\(port) answered \(response.status)")
                return false
            }
            logger.info("nearby: answered the announcement of \(peer.alias.debugDescription) with POST register to \(usesTLS ? "https" : "http")://\(address):\(port)")
            return true
        } catch {
            logger.debug("nearby: register to \(peer.alias.debugDescription) at \(address):\(port) failed (\(error)): answering by multicast")
            return false
        }
    }

    /// An IPv4 subnet of an interface discovery joined.
    struct Subnet: Sendable {
        let network: UInt32
        let mask: UInt32

        init?(_ device: NIONetworkDevice) {
            guard case .v4(let address) = device.address, case .v4(let netmask) = device.netmask else { return nil }
            mask = UInt32(bigEndian: netmask.address.sin_addr.s_addr)
            network = UInt32(bigEndian: address.address.sin_addr.s_addr) & mask
        }

        func contains(_ address: String) -> Bool {
            var parsed = in_addr()
            guard inet_pton(AF_INET, address, &parsed) == 1 else { return false }
            return UInt32(bigEndian: parsed.s_addr) & mask == network
        }
    }
}
