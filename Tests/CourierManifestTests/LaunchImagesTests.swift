import BusTestSupport
import CourierManifest
import Foundation
import Glibc
import Testing

/// `UILaunchImageFile` and the launch images beside a manifest (docs/manifest.md, "Launch
/// images"), read from real files: a bad base name or a bad image is a warning naming the key and
/// the file, the app is registered, and launches without it.
@Suite struct LaunchImagesTests {
    /// A folder with the manifest of an app claiming `todolist` (and `tasks`), `extra` inside its dict.
    func folder(extra: String = "") throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-launch-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let manifest = folder.appendingPathComponent("com.acme.todolist.plist")
        try Data(appPlist("com.acme.todolist", schemes: ["todolist", "tasks"], extra: extra).utf8).write(to: manifest)
        return (folder, manifest.path)
    }

    func key(_ value: String) -> String { "<key>UILaunchImageFile</key><string>\(value)</string>" }

    /// A PNG header of `width` × `height` pixels.
    func png(_ width: UInt32, _ height: UInt32) -> [UInt8] {
        var bytes = SampleContent.png
        for (offset, value) in [(16, width), (20, height)] {
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
        }
        return bytes
    }

    @Test func theDefaultBaseNamesImagePerSchemeIsFoundAndAMissingOneIsNoProblem() throws {
        let (folder, path) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(SampleContent.png).write(to: folder.appendingPathComponent("Default-todolist.png"))
        let result = ManifestLoader().load(file: path)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.manifest?.launchImages?.paths == ["todolist": folder.appendingPathComponent("Default-todolist.png").path])
    }

    @Test func aDeclaredBaseNameWithAPNGSuffixIsReadAsIOSReadsIt() throws {
        let (folder, path) = try folder(extra: key("Splash.png"))
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(SampleContent.png).write(to: folder.appendingPathComponent("Splash-tasks.png"))
        let result = ManifestLoader().load(file: path)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.manifest?.launchImages?.baseName == "Splash")
        #expect(result.manifest?.launchImages?.paths.keys.sorted() == ["tasks"])
    }

    @Test(arguments: ["../../../etc/passwd", "/tmp/x", ".hidden", "", String(repeating: "a", count: 65)])
    func aBaseNameThatIsNotOneIsRefusedAndNoImageIsShown(_ value: String) throws {
        let (folder, path) = try folder(extra: key(value))
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(SampleContent.png).write(to: folder.appendingPathComponent("Default-todolist.png"))
        let result = ManifestLoader().load(file: path)
        let warning = try #require(result.diagnostic(.invalidLaunchImage), "\(result.diagnostics)")
        #expect(warning.keyPath == "UILaunchImageFile")
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("launches without a launch image"), "\(warning.message)")
        // Registered, without an image: not even Default's.
        #expect(result.manifest != nil)
        #expect(result.manifest?.launchImages == nil)
    }

    @Test func aDeclaredBaseNameWithoutAnyImageNamesTheFilesLookedFor() throws {
        let (folder, path) = try folder(extra: key("Splash"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = ManifestLoader().load(file: path)
        let warning = try #require(result.diagnostic(.invalidLaunchImage), "\(result.diagnostics)")
        #expect(warning.message.contains("Splash-todolist.png, Splash-tasks.png"), "\(warning.message)")
        #expect(warning.message.contains(folder.path), "\(warning.message)")
        #expect(result.manifest?.launchImages?.paths.isEmpty == true)
    }

    /// Each bad file is named with what is wrong; none blocks the loader (a FIFO is never waited on)
    /// and none stops the manifest.
    @Test func aHostileOrBrokenImageIsAWarningAndTheAppIsStillRegistered() throws {
        let (folder, path) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, String, (URL) throws -> Void)] = [
            ("symbolic link", "Default-todolist.png", { try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "/etc/passwd") }),
            ("a FIFO", "Default-tasks.png", { url in #expect(mkfifo(url.path, 0o600) == 0) }),
        ]
        for (_, name, make) in cases { try make(folder.appendingPathComponent(name)) }
        var result = ManifestLoader().load(file: path)
        #expect(result.manifest != nil)
        #expect(result.manifest?.launchImages?.paths.isEmpty == true)
        var messages = result.diagnostics.filter { $0.code == .invalidLaunchImage }.map(\.message)
        for (words, name, _) in cases {
            #expect(messages.contains { $0.contains(name) && $0.contains(words) }, "\(messages)")
        }

        for name in ["Default-todolist.png", "Default-tasks.png"] { try FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        try Data(SampleContent.png + [UInt8](repeating: 0, count: LaunchImages.maximumFileSize)).write(to: folder.appendingPathComponent("Default-todolist.png"))
        try Data("not an image\n".utf8).write(to: folder.appendingPathComponent("Default-tasks.png"))
        result = ManifestLoader().load(file: path)
        messages = result.diagnostics.filter { $0.code == .invalidLaunchImage }.map(\.message)
        #expect(messages.contains { $0.contains("Default-todolist.png") && $0.contains("byte limit") }, "\(messages)")
        #expect(messages.contains { $0.contains("Default-tasks.png") && $0.contains("not a PNG") }, "\(messages)")

        try Data(png(5000, 16)).write(to: folder.appendingPathComponent("Default-tasks.png"))
        result = ManifestLoader().load(file: path)
        messages = result.diagnostics.filter { $0.code == .invalidLaunchImage }.map(\.message)
        #expect(messages.contains { $0.contains("5000×16") }, "\(messages)")
        #expect(result.manifest?.launchImages?.paths.isEmpty == true)
    }

    /// Loading the folder looks only at the `.png` names its listing has, and finds and reports
    /// the same as loading the file.
    @Test func loadingTheFolderFindsAndReportsTheSameImages() throws {
        let (folder, path) = try folder(extra: key("Splash"))
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(SampleContent.png).write(to: folder.appendingPathComponent("Splash-todolist.png"))
        #expect(mkfifo(folder.appendingPathComponent("Splash-tasks.png").path, 0o600) == 0)
        let byFolder = try #require(ManifestLoader().load(folders: [folder.path]).files.first)
        let byFile = ManifestLoader().load(file: path)
        #expect(byFolder.manifest?.launchImages?.paths == ["todolist": folder.appendingPathComponent("Splash-todolist.png").path])
        #expect(byFolder.manifest?.launchImages == byFile.manifest?.launchImages)
        #expect(byFolder.diagnostics == byFile.diagnostics, "\(byFolder.diagnostics)")
        #expect(byFolder.diagnostics.contains { $0.code == .invalidLaunchImage && $0.message.contains("a FIFO") }, "\(byFolder.diagnostics)")
    }
}
