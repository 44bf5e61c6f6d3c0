import CourierDesktop
import CourierManifest
import Foundation

/// `courier register` without a running broker: writes the desktop entries from the manifests on
/// disk, as the next broker would at start-up, so `xdg-open` and `gio open` reach the app at once
/// (the entry runs `courier open`, which starts the broker).
enum OfflineDesktopEntries {
    /// Synchronizes the entries with the offline registry; returns a line for the user.
    static func synchronize() -> String {
        guard let courier = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return "desktop entries not written: cannot tell where this courier executable is"
        }
        do {
            let exec = try DesktopExec(command: [courier, "open", "--desktop-entry"])
            let registry = RegistryService(configuration: .standard()).snapshot
            let report = try DesktopIntegration(exec: exec).synchronize(DesktopApp.owners(in: registry))
            return "desktop entries: \(report.writtenEntries.count) written, \(report.removedEntries.count) removed"
        } catch {
            return "desktop entries not written: \(error)"
        }
    }
}
