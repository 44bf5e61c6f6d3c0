import ArgumentParser
import CourierNearby
import Foundation
import Logging
import Synchronization

/// `courier nearby scan`: who answers a multicast announcement on the local network.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List the LocalSend devices nearby (multicast discovery).",
        discussion: "Announces this device on every multicast-capable interface and lists who answers, by multicast or by POST register (which needs the LocalSend port free: not while courier nearby receive runs here)."
    )

    @Option(help: "Seconds to listen for answers.")
    var timeout: Double = 2

    @Option(help: "The LocalSend port.")
    var port: Int = NearbyProtocol.defaultPort

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        NearbyContext.bootstrapLogging()
        let found = try await Self.scan(port: port, duration: .milliseconds(Int(timeout * 1000)))
        if json {
            printJSON(["devices": found.map { device, address in
                ["alias": device.alias, "address": address, "port": device.port ?? port, "fingerprint": device.fingerprint,
                 "deviceType": device.deviceType ?? "", "deviceModel": device.deviceModel ?? "", "protocol": device.protocol ?? NearbyProtocol.https,
                 "version": device.version ?? ""] as [String: Any]
            }])
        } else if found.isEmpty {
            FileHandle.standardError.write(Data("courier nearby scan: no device answered within \(timeout) s\n".utf8))
        } else {
            for (device, address) in found {
                print("\(device.printableAlias)\t\(address):\(device.port ?? port)\t\(device.deviceType ?? "?")\t\(device.fingerprint)")
            }
        }
    }

    /// Every device heard within `duration`, one entry per fingerprint (the latest address).
    static func scan(port: Int, duration: Duration) async throws -> [(device: NearbyDevice, address: String)] {
        let logger = Logger(label: "courier.nearby")
        let context = NearbyContext()
        let identity = try context.identity()
        let device = context.device(alias: nil, identity: identity, port: port)
        let registered = Mutex<[(device: NearbyDevice, address: String)]>([])
        var options = NearbyServer.Options()
        options.port = port
        // Peers answer an announcement with POST register; without the port (a receiver runs
        // here) only their multicast answers are heard.
        let server = try? await NearbyServer.bind(device: device, receiver: nil, identity: identity, options: options, logger: logger) { peer, address in
            registered.withLock { $0.append((peer, address)) }
        }
        let serving = Task { try? await server?.serve() }
        defer { serving.cancel() }
        let heard = try await NearbyDiscovery(device: device, port: port, logger: logger).scan(for: duration)
        var byFingerprint: [String: (device: NearbyDevice, address: String)] = [:]
        var order: [String] = []
        for entry in heard + registered.withLock({ $0 }) where !NearbyIdentity.same(entry.device.fingerprint, identity.fingerprint) {
            let key = entry.device.fingerprint.lowercased()
            if byFingerprint[key] == nil { order.append(key) }
            byFingerprint[key] = entry
        }
        return order.compactMap { byFingerprint[$0] }
    }
}
