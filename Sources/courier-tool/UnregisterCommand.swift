import ArgumentParser
import Courier
import CourierNames
import Foundation

/// `courier unregister BUNDLE_ID`: remove an app from the running broker (and its installed copy).
struct UnregisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister",
        abstract: "Unregister an app from the running broker, and delete the copy `register` installed."
    )

    @Argument(help: "The app's bundle id.")
    var bundleID: String

    func run() async throws {
        do {
            let client = try BrokerClient.session()
            guard await client.brokerIsRunning() else {
                throw CourierError(.brokerUnavailable, "no broker is running; delete the manifest from \(UserManifests.folder.path) instead")
            }
            let path = try await client.listApplications().first { $0["bundle-id"]?.stringValue == bundleID }?["path"]?.stringValue
            try await client.unregister(bundleID: bundleID)
            if let path, path.hasPrefix(UserManifests.folder.path + "/") {
                try? FileManager.default.removeItem(atPath: path)
            }
            print("unregistered \(bundleID)")
        } catch let error as CourierError {
            FileHandle.standardError.write(Data("courier unregister: \(error.message)\n".utf8))
            throw CourierExitCode(error).exitCode
        }
    }
}
