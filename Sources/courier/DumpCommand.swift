import ArgumentParser
import CourierManifest

/// `courier dump [--json]`: every app, its claims, launch command and manifest, and every diagnostic.
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show every registered app, its schemes and document types, and all diagnostics (like lsregister -dump).")

    @OptionGroup var manifests: ManifestFolderOptions

    @Flag(help: "Print JSON: {\"applications\":[…],\"schemes\":{…},\"diagnostics\":[…]}.")
    var json = false

    func run() async throws {
        let dump = manifests.service().dump()
        print(json ? dump.json() : dump.description, terminator: json ? "\n" : "")
    }
}
