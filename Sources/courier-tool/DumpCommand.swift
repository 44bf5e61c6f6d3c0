import ArgumentParser
import CourierNames
import CourierManifest
import CourierTools

/// `courier dump [--json]`: every app, its claims, launch command and manifest, and every diagnostic.
/// Without `--manifests`, the running broker's registry (`Broker1.Dump`); with none running, the
/// manifest folders on disk.
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show every registered app, its schemes and document types, and all diagnostics (like lsregister -dump).",
        discussion: "Without --manifests: what the running broker has registered (never starts one); with no broker running, the manifest folders on disk.")

    @OptionGroup var manifests: ManifestFolderOptions

    @Flag(help: "Print JSON: {\"applications\":[…],\"schemes\":{…},\"diagnostics\":[…]}.")
    var json = false

    func run() async throws {
        var changes: [String] = []
        let text: String
        if manifests.folders.isEmpty, let broker = await BrokerConnection.runningRegistry(for: "dump") {
            do {
                text = try await broker.dump(json: json)
                changes = try await broker.recentChanges()
            } catch {
                reportRegistryError("courier dump: \(error.message)")
                throw CourierExitCode(error).exitCode
            }
        } else {
            let dump = manifests.service().dump()
            text = json ? dump.json() : dump.description
        }
        print(text, terminator: json ? "\n" : "")
        // Who changed the registry (the running broker's record): text form only.
        if !json, !changes.isEmpty {
            print("\nrecent registry changes (the broker's log)")
            for change in changes { print("  \(change)") }
        }
    }
}
