import Foundation
public import Logging
public import NIOCore
import NIOPosix

/// Multicast discovery (protocol v2, section 3.1): UDP on the LocalSend port, group 224.0.0.167,
/// joined on every IPv4 interface that supports multicast. Announcements go out on each of those
/// interfaces (`IP_MULTICAST_IF`), TTL 1: discovery stays on the local link.
///
/// A receiver announces itself at start (three times: at 0, 0.3 and 1 s, as datagrams may be lost)
/// and answers every announcement it hears as the protocol prefers: `POST register` to the
/// announcer (``RegisterReplier``: HTTPS or HTTP as announced, only to an address on one of the
/// joined interfaces' subnets), falling back to a multicast answer (`announce: false`) when that
/// fails or is not allowed. A scan announces and collects whoever answers (peers also answer with
/// `POST register`, which the scan's ``NearbyServer`` collects).
public struct NearbyDiscovery: Sendable {
    public typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    public let device: NearbyDevice
    public let port: Int
    /// Only the interface with this IPv4 address (a receiver bound to one address announces on
    /// its interface alone); nil: every multicast-capable interface.
    public let interfaceAddress: String?
    public let logger: Logger
    /// This device's identity, for answering announcements with `POST register`; nil: answers go
    /// by multicast only.
    public let identity: NearbyIdentity?

    public init(device: NearbyDevice, port: Int, interfaceAddress: String? = nil, identity: NearbyIdentity? = nil, logger: Logger) {
        self.device = device
        self.port = port
        self.interfaceAddress = interfaceAddress
        self.identity = identity
        self.logger = logger
    }

    /// The receiver's side: announce, then answer announcements until cancelled.
    public func announceAndAnswer() async throws {
        let (channel, interfaces) = try await open()
        let subnets = interfaces.compactMap(RegisterReplier.Subnet.init)
        let replier = identity.map { RegisterReplier(identity: $0, device: device, logger: logger) }
        try await channel.executeThenClose { inbound, outbound in
            // One task writes every datagram (IP_MULTICAST_IF is per socket: sends must not
            // interleave); a burst of fallback answers is one answer.
            let (datagrams, queue) = AsyncStream.makeStream(of: NearbyDevice.self, bufferingPolicy: .bufferingNewest(4))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in datagrams {
                        try await send(message, on: interfaces, channel: channel.channel, outbound: outbound)
                    }
                }
                group.addTask {
                    for delay in [0, 300, 700] {
                        try await Task.sleep(for: .milliseconds(delay))
                        queue.yield(device.announcing(true))
                    }
                }
                group.addTask {
                    try await withThrowingDiscardingTaskGroup { answers in
                        for try await envelope in inbound {
                            guard let peer = decode(envelope), peer.announce == true, let address = envelope.remoteAddress.ipAddress else { continue }
                            logger.debug("nearby: announcement from \(peer.alias.debugDescription) at \(address)")
                            answers.addTask {
                                if await replier?.register(with: peer, at: address, subnets: subnets) != true {
                                    queue.yield(device.announcing(false))
                                }
                            }
                        }
                    }
                    queue.finish()
                }
                defer { queue.finish() }
                try await group.waitForAll()
            }
        }
    }

    /// The scan's side: announce, and return every other device heard within `duration`
    /// (with the address it spoke from), plus those `registered` reports.
    public func scan(for duration: Duration) async throws -> [(device: NearbyDevice, address: String)] {
        let (channel, interfaces) = try await open()
        let found = try await channel.executeThenClose { inbound, outbound in
            try await send(device.announcing(true), on: interfaces, channel: channel.channel, outbound: outbound)
            return try await withThrowingTaskGroup(of: [(device: NearbyDevice, address: String)]?.self) { group in
                group.addTask {
                    var heard: [(device: NearbyDevice, address: String)] = []
                    for try await envelope in inbound {
                        guard let peer = decode(envelope), let address = envelope.remoteAddress.ipAddress else { continue }
                        heard.append((peer, address))
                    }
                    return heard
                }
                group.addTask {
                    try await Task.sleep(for: duration)
                    return nil
                }
                _ = try await group.next()
                channel.channel.close(promise: nil)
                var all: [(device: NearbyDevice, address: String)] = []
                for try await result in group { all += result ?? [] }
                return all
            }
        }
        return found
    }

    /// A LocalSend device from a datagram, unless it is malformed or this device's own echo.
    private func decode(_ envelope: AddressedEnvelope<ByteBuffer>) -> NearbyDevice? {
        guard envelope.data.readableBytes <= 64 << 10,
              let peer = try? JSONDecoder().decode(NearbyDevice.self, from: Data(envelope.data.readableBytesView)),
              !NearbyIdentity.same(peer.fingerprint, device.fingerprint) else { return nil }
        return peer
    }

    /// The UDP socket on the LocalSend port, joined to the group on every multicast interface.
    private func open() async throws -> (Datagrams, [NIONetworkDevice]) {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .bind(host: "0.0.0.0", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        let group = try SocketAddress(ipAddress: NearbyProtocol.multicastGroup, port: port)
        let interfaces = ((try? System.enumerateDevices()) ?? []).filter { [interfaceAddress] device in
            guard case .v4 = device.address, device.multicastSupported else { return false }
            return interfaceAddress == nil || device.address?.ipAddress == interfaceAddress
        }
        guard let multicast = channel.channel as? any MulticastChannel else { return (channel, []) }
        var joined: [NIONetworkDevice] = []
        for interface in interfaces {
            do {
                try await multicast.joinGroup(group, device: interface).get()
                joined.append(interface)
            } catch {
                logger.debug("nearby: cannot join \(NearbyProtocol.multicastGroup) on \(interface.name): \(error)")
            }
        }
        if joined.isEmpty {
            logger.warning("nearby: no interface could join \(NearbyProtocol.multicastGroup): this device is not discoverable (senders can still use its address)")
        }
        _ = try? await (channel.channel as? any SocketOptionProvider)?.setIPMulticastTTL(1).get()
        return (channel, joined)
    }

    private func send(_ message: NearbyDevice, on interfaces: [NIONetworkDevice], channel: any Channel,
                      outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>) async throws {
        let group = try SocketAddress(ipAddress: NearbyProtocol.multicastGroup, port: port)
        let payload = ByteBuffer(bytes: try JSONEncoder().encode(message))
        for interface in interfaces {
            guard case .v4(let address) = interface.address else { continue }
            do {
                try await (channel as? any SocketOptionProvider)?.setIPMulticastIF(address.address.sin_addr).get()
                try await outbound.write(AddressedEnvelope(remoteAddress: group, data: payload))
            } catch {
                logger.debug("nearby: cannot announce on \(interface.name): \(error)")
            }
        }
    }
}
