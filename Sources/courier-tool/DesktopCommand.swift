import ArgumentParser
import CourierDesktop
import CourierManifest
import CourierNames
import Foundation

/// `courier desktop [--remove]`: the desktop entries (and `mimeapps.list` defaults) that let
/// `xdg-open` and `gio open` reach Courier apps, written from the manifests on disk as a broker
/// writes them at start-up — or all removed, which `scripts/uninstall` runs so that no entry is
/// left pointing at a deleted `courier`.
struct DesktopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desktop",
        abstract: "Write the desktop entries of the registered apps, or remove every Courier entry and default (--remove).",
        discussion: """
            Entries are $XDG_DATA_HOME/applications/courier-BUNDLE_ID.desktop; defaults are the \
            x-scheme-handler lines Courier added to $XDG_CONFIG_HOME/mimeapps.list. --remove takes out exactly \
            those (other lines and other entries are left alone); a default you set to a desktop application \
            with `courier default` stays, and --remove names it. A running broker writes them again at its \
            next registry change: stop it first.
            """
    )

    @Flag(help: "Remove every Courier desktop entry and the defaults Courier set.")
    var remove = false

    func run() async throws {
        guard remove else {
            print(OfflineDesktopEntries.synchronize())
            return
        }
        do {
            let exec = try DesktopExec(command: [OfflineDesktopEntries.userCourier ?? "courier", "open", "--desktop-entry"])
            let report = try DesktopIntegration(exec: exec).synchronize([])
            print("desktop entries: \(report.removedEntries.count) removed\(report.mimeAppsListChanged ? ", mimeapps.list defaults removed" : "")")
            // What the user chose for desktop applications with `courier default` is theirs: kept.
            let registry = RegistryService(configuration: .standard()).snapshot
            let preferences = registry.preferences
            let kept = preferences.desktopSchemeDefaults.map { "\(DesktopApp.mimeType(forScheme: $0.key))=\($0.value)" }
                + preferences.desktopTypeDefaults.map { "\(registry.types.preferredMIMEType(for: $0.key) ?? $0.key)=\($0.value)" }
            if !kept.isEmpty {
                print("kept in mimeapps.list the defaults you chose for desktop applications: \(kept.sorted().joined(separator: ", "))")
            }
        } catch {
            FileHandle.standardError.write(Data("courier desktop: \(error)\n".utf8))
            throw CourierExitCode.cannotWrite.exitCode
        }
    }
}
