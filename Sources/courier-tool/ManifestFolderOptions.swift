import ArgumentParser
import CourierManifest
import Foundation

/// `--manifests DIR` (repeatable), shared by the registry commands.
struct ManifestFolderOptions: ParsableArguments {
    @Option(
        name: .customLong("manifests"),
        help: ArgumentHelp(
            "A folder of manifests, or one manifest file (repeatable). Default: $COURIER_MANIFEST_PATH, else $XDG_DATA_HOME/courier/manifests and <each $XDG_DATA_DIRS>/courier/manifests.",
            valueName: "dir"))
    var folders: [String] = []

    /// The registry as the files say, offline.
    func service() -> RegistryService {
        RegistryService(configuration: .standard(manifestFolders: folders))
    }
}

/// Writes one line to standard error (the registry commands' error channel).
func reportRegistryError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
