import CourierProtocol
import ArgumentParser
import CourierTools
import CourierManifest
import Courier
import CourierNames
import Foundation

/// `courier unregister BUNDLE_ID`: remove an app from the running broker (or, with none running,
/// from the manifests on disk), with the copy `register` installed, its desktop entry and its log.
/// The app's container — the user's documents — stays, and the command says where.
struct UnregisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister",
        abstract: "Unregister an app, and delete the copy `register` installed, its desktop entry and its log.",
        discussion: "The app's data ($XDG_DATA_HOME/courier/containers/BUNDLE_ID) is kept."
    )

    @Argument(help: "The app's bundle id.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    func run() async throws {
        do {
            if let client = await BrokerToolClient.running() {
                let path = try await client.listApplications().first { $0[CourierKey.bundleID] == bundleID }?[CourierKey.path]
                try await client.unregister(bundleID: bundleID)
                if let path, path.hasPrefix(UserManifests.folder.path + "/") {
                    try? FileManager.default.removeItem(atPath: path)
                }
            } else {
                // No broker: the copy on disk, or a path a registration over the bus saved, is the
                // registration the next broker would load.
                let copy = installedCopy()
                let saved = try forgetSavedRegistration()
                guard copy != nil || saved else {
                    throw CourierError(.noHandler, "\(bundleID) is not registered in \(UserManifests.folder.path) nor in \(savedRegistrations.registrationsPath) (no broker is running)")
                }
                if let copy { try? FileManager.default.removeItem(atPath: copy) }
                print(OfflineDesktopEntries.synchronize())
            }
        } catch let error as CourierError {
            throw error.reported("courier unregister")
        }
        if let app = try? BundleIdentifier(bundleID) {
            let layout = CourierLayout.current()
            try? FileManager.default.removeItem(atPath: layout.log(for: app))
            try? FileManager.default.removeItem(atPath: layout.previousLog(for: app))
        }
        let container = Application.defaultContainer(bundleID: bundleID)
        let kept = FileManager.default.fileExists(atPath: container.path) ? "; its data stays in \(container.path)" : ""
        print("unregistered \(bundleID)\(kept)")
    }

    /// Where the broker saves the paths of manifests registered over the bus from outside the
    /// manifest folders (`registrations.json`).
    private var savedRegistrations: RegistryStateStore { RegistryStateStore(folder: CourierLayout.current().configFolder) }

    /// Removes the saved registrations whose manifest declares `bundleID`; whether there was one.
    private func forgetSavedRegistration() throws(CourierError) -> Bool {
        let store = savedRegistrations
        let paths = store.load().registeredPaths
        let declaring = Set(ManifestLoader().load(files: paths).filter { $0.manifest?.bundleIdentifier.rawValue == bundleID }.map(\.path))
        guard !declaring.isEmpty else { return false }
        do {
            try store.save(registeredPaths: paths.filter { !declaring.contains($0) })
        } catch {
            throw CourierError(.failed, "\(bundleID) was not unregistered: \(error.message)")
        }
        return true
    }

    /// The manifest in the user's folder that declares `bundleID`.
    private func installedCopy() -> String? {
        let loaded = ManifestLoader().load(folders: [UserManifests.folder.path], reportMissing: false)
        return loaded.files.first { $0.manifest?.bundleIdentifier.rawValue == bundleID }?.path
    }
}
