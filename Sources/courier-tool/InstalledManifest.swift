import CourierNames
import ArgumentParser
import CourierManifest
import Foundation

/// The copy of a manifest that `courier register` installs in the user's manifests folder, named
/// after the bundle id (two apps' `Info.plist` never overwrite each other; registering an app
/// again replaces its copy), with `argv[0]` of `CourierLaunchArguments` made absolute when the
/// review resolved it (`LaunchCommandRecording`: recorded for real, or the registration is refused). Until the broker accepts it, the copy can be rolled back: the folder is then
/// as it was (the previous copy restored, or none).
struct InstalledManifest {
    /// The installed file (the user's own file when it is already in the manifests folder).
    let destination: URL
    /// What `destination` held before; nil when it did not exist.
    private let previous: Data?
    /// Whether `install` wrote anything.
    private let wrote: Bool

    /// Writes the copy (atomically). A manifest already in the folder the broker reads is not
    /// copied: the path is recorded in it, in place. Exits with 73 when the folder or the file
    /// cannot be written, or the path cannot be recorded (saying why; nothing is installed).
    static func install(source: String, bundleID: String, executable: String?) throws -> InstalledManifest {
        let folder = UserManifests.folder
        let sourceURL = URL(fileURLWithPath: source).standardizedFileURL
        // Already in the folder the broker reads: registering it must not add a second copy.
        let inFolder = sourceURL.deletingLastPathComponent().path == folder.standardizedFileURL.path
        if inFolder && executable == nil { return InstalledManifest(destination: sourceURL, previous: nil, wrote: false) }
        let destination = inFolder ? sourceURL : folder.appendingPathComponent(bundleID + ".plist")
        let data: Data
        do {
            let original = try Data(contentsOf: sourceURL)
            if let executable {
                data = Data(try LaunchCommandRecording.recording(executable, in: Array(original), path: destination.path))
            } else {
                data = original
            }
        } catch let failure as LaunchCommandRecording.Failure {
            FileHandle.standardError.write(Data("courier register: cannot record the path \(executable ?? "") as the launch command of \(source): \(failure.reason) (nothing was installed); write the absolute path in CourierLaunchArguments yourself\n".utf8))
            throw CourierExitCode.cannotWrite.exitCode
        } catch {
            FileHandle.standardError.write(Data("courier register: cannot read \(source): \(error.localizedDescription) (nothing was installed)\n".utf8))
            throw CourierExitCode.cannotOpen.exitCode
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let previous = FileManager.default.contents(atPath: destination.path)
            try data.write(to: destination, options: .atomic)
            return InstalledManifest(destination: destination, previous: previous, wrote: true)
        } catch {
            FileHandle.standardError.write(Data("courier register: cannot install a copy of \(source) as \(destination.path): \(error.localizedDescription) (nothing was installed)\n".utf8))
            throw CourierExitCode.cannotWrite.exitCode
        }
    }

    /// Puts the folder back as it was before `install`.
    func rollBack() {
        guard wrote else { return }
        if let previous {
            try? previous.write(to: destination, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: destination)
        }
    }
}
