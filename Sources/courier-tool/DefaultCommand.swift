import ArgumentParser
import CourierManifest

/// `courier default SCHEME BUNDLE_ID` (or `--type UTI BUNDLE_ID`): set the user's default handler.
struct DefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default",
        abstract: "Choose the app that handles a scheme (or, with --type, a file type). Saved in $XDG_CONFIG_HOME/courier/defaults.json.",
        discussion: "For a scheme that belongs to the system (http, mailto, …) this is also the permission for that app to handle it.")

    @OptionGroup var manifests: ManifestFolderOptions

    @Option(name: .customLong("type"), help: ArgumentHelp("Set the default for this uniform type identifier instead of a scheme.", valueName: "uti"))
    var type: String?

    @Argument(help: "SCHEME BUNDLE_ID, or BUNDLE_ID alone with --type.")
    var arguments: [String] = []

    func validate() throws {
        if type == nil && arguments.count != 2 { throw ValidationError("usage: courier default SCHEME BUNDLE_ID") }
        if type != nil && arguments.count != 1 { throw ValidationError("usage: courier default --type UTI BUNDLE_ID") }
    }

    func run() async throws {
        let service = manifests.service()
        let outcome: Result<String, RegistryError>
        do {
            if let type {
                try service.setDefault(arguments[0], forType: type)
                outcome = .success("\(arguments[0]) now opens \(type)")
            } else {
                let scheme = Registry.scheme(fromURLOrScheme: arguments[0]) ?? arguments[0]
                try service.setDefault(arguments[1], forScheme: scheme)
                outcome = .success("\(arguments[1]) now handles \(scheme.lowercased()):")
            }
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let line):
            print(line)
        case .failure(let error):
            reportRegistryError("courier: \(error.message)")
            throw ExitCode(error.code == .stateNotWritable ? 73 : 65)
        }
    }
}
