import ArgumentParser
import Courier
import Foundation

/// `courier register MANIFEST`: install a manifest for this user and tell the running broker.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register an app's Info.plist manifest with Courier.",
        discussion: """
            The file is copied into $XDG_DATA_HOME/courier/manifests/ (so it survives restarts); when a broker \
            runs, it loads the copy at once and reports problems, else the next broker picks it up.
            """
    )

    @Argument(help: "The manifest (an Info.plist with CFBundleIdentifier and CFBundleURLTypes).")
    var manifest: String

    func run() async throws {
        let source = URL(fileURLWithPath: manifest)
        let folder = UserManifests.folder
        let destination = folder.appendingPathComponent(source.lastPathComponent)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if source.standardizedFileURL.path != destination.standardizedFileURL.path {
                let data = try Data(contentsOf: source)
                try data.write(to: destination, options: .atomic)
            }
        } catch {
            throw ValidationError("cannot copy \(manifest) into \(folder.path): \(error.localizedDescription)")
        }
        do {
            let client = try BrokerClient.session()
            guard await client.brokerIsRunning() else {
                print("installed \(destination.path); no broker is running, the next one loads it")
                print(OfflineDesktopEntries.synchronize())
                return
            }
            let bundleID = try await client.registerManifest(atPath: destination.path)
            print("registered \(bundleID) from \(destination.path)")
        } catch {
            FileHandle.standardError.write(Data("courier register: \(error.message)\n".utf8))
            throw OpenExitCode(error).exitCode
        }
    }
}

/// `$XDG_DATA_HOME/courier/manifests`: where `register` installs manifests.
enum UserManifests {
    static var folder: URL {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent("courier/manifests", isDirectory: true)
    }
}
