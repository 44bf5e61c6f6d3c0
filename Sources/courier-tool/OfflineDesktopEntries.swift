import CourierDesktop
import CourierManifest
import Foundation

/// `courier register` without a running broker: writes the desktop entries from the manifests on
/// disk, as the next broker would at start-up, so `xdg-open` and `gio open` reach the app at once
/// (the entry runs `courier open`, which starts the broker).
enum OfflineDesktopEntries {
    /// Synchronizes the entries with the offline registry; returns a line for the user.
    static func synchronize() -> String {
        guard let courier = userCourier else {
            return "desktop entries not written: cannot tell where this courier executable is"
        }
        do {
            let exec = try DesktopExec(command: [courier, "open", "--desktop-entry"])
            let registry = RegistryService(configuration: .standard()).snapshot
            let apps = registry.schemeOwnerships().compactMap { try? DesktopApp(bundleIdentifier: $0.bundleIdentifier, name: $0.name, schemes: $0.schemes) }
            let report = try DesktopIntegration(exec: exec).synchronize(apps)
            return "desktop entries: \(report.writtenEntries.count) written, \(report.removedEntries.count) removed"
        } catch {
            return "desktop entries not written: \(error)"
        }
    }

    /// The `courier` users run, for the entries' Exec: the front passes its own absolute path as
    /// `argv[0]` when it execs this full CLI (`courier-tool`); else this executable.
    static var userCourier: String? {
        let first = CommandLine.arguments.first ?? ""
        if first.hasPrefix("/"), (first as NSString).lastPathComponent == "courier", FileManager.default.isExecutableFile(atPath: first) {
            return first
        }
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
