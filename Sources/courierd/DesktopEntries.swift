import CourierBroker
import CourierDesktop
import CourierNames
import Foundation
import Logging

/// courierd's side of the desktop integration: one desktop entry per registered app in
/// `$XDG_DATA_HOME/applications`, default for the schemes it owns in `mimeapps.list`, refreshed
/// whenever the registry changes (see docs/desktop.md). The entries run the `courier` CLI that sits
/// next to this `courierd`: `courier open --desktop-entry -- %u`.
enum DesktopEntries {
    /// The background writer, or `nil` when the integration is turned off or `courier` is missing.
    static func start(catalog: ManifestCatalog, environment: [String: String], logger: Logger) -> DesktopEntrySync? {
        guard let courier = courierExecutable(environment: environment) else {
            logger.warning("desktop entries are not written: the courier CLI is neither next to courierd nor on PATH, so xdg-open and gio open cannot reach Courier apps")
            return nil
        }
        let exec: DesktopExec
        do {
            exec = try DesktopExec(command: [courier, "open", "--desktop-entry"])
        } catch {
            logger.warning("desktop entries are not written: \(error)")
            return nil
        }
        if !exec.isSafeForXDGOpen {
            logger.warning("\(courier) contains blanks or shell characters: gio can run the desktop entries, xdg-utils' xdg-open cannot; install Courier under a plain path")
        }
        let integration = DesktopIntegration(layout: CourierLayout(environment: environment), exec: exec, environment: environment)
        return DesktopEntrySync(integration: integration) { outcome in
            switch outcome {
            case .success(let report) where report.changedAnything:
                logger.info("desktop entries: wrote \(report.writtenEntries.count), removed \(report.removedEntries.count), mimeapps.list \(report.mimeAppsListChanged ? "updated" : "unchanged")")
            case .success:
                break
            case .failure(let error):
                logger.warning("desktop entries not updated: \(error)")
            }
        }
    }

    /// What the desktop should see now: each app with the schemes the registry routes to it.
    /// (Apps whose bundle identifier cannot name a desktop file are left out: the loader reported them.)
    static func apps(_ catalog: ManifestCatalog) -> [DesktopApp] {
        catalog.schemeOwners().compactMap { try? DesktopApp(bundleIdentifier: $0.bundleIdentifier, name: $0.name, schemes: $0.schemes) }
    }

    /// `courier` beside this executable, else on `PATH` (absolute paths only).
    static func courierExecutable(environment: [String: String]) -> String? {
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let sibling = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("courier").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        guard let found = ExternalProgram.find("courier", environment: environment), found.path.hasPrefix("/") else { return nil }
        return found.path
    }
}
