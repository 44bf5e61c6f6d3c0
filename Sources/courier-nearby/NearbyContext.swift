import CourierNearby
import Foundation
import Logging

/// What every subcommand shares: the folders, this device's identity and name, logging.
struct NearbyContext {
    let folders = NearbyFolders()

    var trustListPath: String { folders.config + "/trusted.json" }

    func identity() throws -> NearbyIdentity {
        try NearbyIdentity.loadOrCreate(in: folders.config)
    }

    /// This device as peers see it: `--alias`, else "Courier on HOSTNAME".
    func device(alias: String?, identity: NearbyIdentity, port: Int, plainHTTP: Bool = false) -> NearbyDevice {
        NearbyDevice(alias: alias ?? "Courier on \(ProcessInfo.processInfo.hostName)", deviceModel: "Linux", deviceType: "desktop",
                     fingerprint: identity.fingerprint, port: port, protocol: plainHTTP ? NearbyProtocol.http : NearbyProtocol.https, download: false)
    }

    /// Log lines on standard error at COURIER_LOG_LEVEL (default info).
    static func bootstrapLogging() {
        let level = ProcessInfo.processInfo.environment["COURIER_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// A refusal or failure of a subcommand: its message on standard error, exit status 1.
struct NearbyCommandError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
