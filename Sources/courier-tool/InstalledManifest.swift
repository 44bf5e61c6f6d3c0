import CourierNames
import ArgumentParser
import CourierManifest
import Foundation

/// The copy of a manifest that `courier register` installs in the user's manifests folder, named
/// after the bundle id (two apps' `Info.plist` never overwrite each other; registering an app
/// again replaces its copy), with `argv[0]` of `CourierLaunchArguments` made absolute when the
/// review resolved it. Until the broker accepts it, the copy can be rolled back: the folder is then
/// as it was (the previous copy restored, or none).
struct InstalledManifest {
    /// The installed file (the user's own file when it is already in the manifests folder).
    let destination: URL
    /// What `destination` held before; nil when it did not exist.
    private let previous: Data?
    /// Whether `install` wrote anything.
    private let wrote: Bool

    /// Writes the copy (atomically). Exits with 73 when the folder or the file cannot be written.
    static func install(source: String, bundleID: String, executable: String?) throws -> InstalledManifest {
        let folder = UserManifests.folder
        let sourceURL = URL(fileURLWithPath: source).standardizedFileURL
        if sourceURL.deletingLastPathComponent().path == folder.standardizedFileURL.path {
            // Already in the folder the broker reads: registering it must not add a second copy.
            return InstalledManifest(destination: sourceURL, previous: nil, wrote: false)
        }
        let destination = folder.appendingPathComponent(bundleID + ".plist")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let previous = FileManager.default.contents(atPath: destination.path)
            let data = try recording(executable, in: Data(contentsOf: sourceURL), path: destination.path)
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

    /// `data` with `argv[0]` of `CourierLaunchArguments` replaced by `executable` (as an XML
    /// property list), checked to load as a manifest again; `data` itself when there is nothing to
    /// record or Foundation cannot rewrite this file (the broker then resolves the name as written).
    private static func recording(_ executable: String?, in data: Data, path: String) -> Data {
        guard let executable else { return data }
        let key = ManifestParser.launchArgumentsKey
        var format = PropertyListSerialization.PropertyListFormat.xml
        guard var plist = (try? PropertyListSerialization.propertyList(from: data, options: [], format: &format)) as? [String: Any],
              var argv = plist[key] as? [String], !argv.isEmpty else { return data }
        argv[0] = executable
        plist[key] = argv
        guard let rewritten = try? PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0),
              ManifestLoader().decode(Array(rewritten), path: path).manifest?.launchCommand?.arguments.first == executable else { return data }
        return rewritten
    }
}
