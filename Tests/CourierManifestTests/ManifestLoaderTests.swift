import BusTestSupport
import Foundation
import Glibc
import Testing
@testable import CourierManifest
import CourierTypes

/// Real files in a temporary folder.
@Suite struct ManifestLoaderTests {
    @Test func xmlAndBinaryPropertyListsBothLoad() throws {
        let folder = TemporaryFolder()
        folder.write("a.plist", appPlist("com.acme.a", schemes: ["a"]))
        let dict: [String: Any] = [
            "CFBundleIdentifier": "com.acme.b",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["b"], "LSHandlerRank": "Owner"]],
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: dict, format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist".utf8)))
        folder.write("b.plist", bytes: Array(binary))
        let result = ManifestLoader().load(folders: [folder.path])
        #expect(result.files.map { $0.manifest?.bundleIdentifier.rawValue } == ["com.acme.a", "com.acme.b"])
        #expect(result.files[1].manifest?.urlTypes.first?.rank == .owner)
        #expect(result.files.allSatisfy { $0.diagnostics.isEmpty })
    }

    @Test(arguments: ["hello world", "{ \"json\": true }", "plain words", "\u{0}\u{1}\u{2}garbage"])
    func fileThatIsNotAPropertyListIsReported(_ text: String) {
        let folder = TemporaryFolder()
        let path = folder.write("x.plist", text)
        let r = ManifestLoader().load(file: path)
        #expect(r.manifest == nil)
        #expect(r.codes() == [.notPropertyList])
        #expect(r.diagnostics[0].file == path)
    }

    @Test func emptyFileIsNotAPropertyList() {
        let folder = TemporaryFolder()
        let r = ManifestLoader().load(file: folder.write("x.plist", ""))
        #expect(r.codes() == [.notPropertyList])
        #expect(r.diagnostics[0].message.contains("empty"))
    }

    @Test func oversizedFileIsRefused() {
        let folder = TemporaryFolder()
        let path = folder.write("big.plist", appPlist("com.acme.big", extra: "<key>Pad</key><string>\(String(repeating: "x", count: 5000))</string>"))
        let r = ManifestLoader(maximumFileSize: 4096).load(file: path)
        #expect(r.manifest == nil)
        #expect(r.codes() == [.tooLarge])
        #expect(r.diagnostics[0].message.contains("4096"))
        #expect(ManifestLoader().load(file: path).manifest != nil)
    }

    @Test func fifoIsRefusedWithoutBlocking() {
        let folder = TemporaryFolder()
        let path = folder.url("pipe.plist")
        #expect(mkfifo(path, 0o644) == 0)
        // No writer ever opens the FIFO: a blocking open would hang this test forever.
        let r = ManifestLoader().load(folders: [folder.path])
        #expect(r.files.count == 1)
        #expect(r.files[0].codes() == [.notRegularFile])
        #expect(r.files[0].diagnostics[0].message.contains("FIFO"))
    }

    @Test func deviceIsRefused() {
        let folder = TemporaryFolder()
        let path = folder.url("dev.plist")
        #expect(symlink("/dev/zero", path) == 0)
        let r = ManifestLoader().load(file: path)
        #expect(r.codes() == [.notRegularFile])
        #expect(r.diagnostics[0].message.contains("character device"))
    }

    @Test func folderNamedLikeAManifestIsRefused() {
        let folder = TemporaryFolder()
        _ = folder.subfolder("dir.plist")
        let r = ManifestLoader().load(folders: [folder.path])
        #expect(r.files.first?.codes() == [.notRegularFile])
    }

    @Test func unreadableFileIsReported() {
        let folder = TemporaryFolder()
        let path = folder.url("dangling.plist")
        #expect(symlink(folder.url("missing-target"), path) == 0)
        let r = ManifestLoader().load(file: path)
        #expect(r.codes() == [.unreadable])
        #expect(r.diagnostics[0].message.contains("No such file"))
    }

    /// A manifest whose file name is not UTF-8 (`caf\xE9.plist`, Latin-1) is listed with the true
    /// reason, not with an "No such file or directory" from opening a repaired name.
    @Test func aFileNameThatIsNotUTF8IsListedWithTheTrueReason() throws {
        let folder = TemporaryFolder()
        folder.write("a.plist", appPlist("com.acme.a", schemes: ["a"]))
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".plist".utf8)
        let fullPath = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let xml = Array(appPlist("com.acme.latin", schemes: ["latin"]).utf8)
        let fd = fullPath.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        #expect(fd >= 0)
        _ = xml.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { _ = fullPath.withUnsafeBufferPointer { unlink(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) } }

        let result = ManifestLoader().load(folders: [folder.path])
        #expect(result.files.compactMap { $0.manifest?.bundleIdentifier.rawValue } == ["com.acme.a"])
        let refused = try #require(result.files.first { $0.manifest == nil })
        #expect(refused.path == folder.path + "/caf\u{FFFD}.plist")
        #expect(refused.codes() == [.invalidFileName])
        #expect(refused.diagnostics[0].message.contains("the file name is not valid UTF-8"), "\(refused.diagnostics)")
        #expect(!refused.diagnostics[0].message.contains("No such file"))
    }

    @Test func oneBadManifestNeverStopsTheOthers() throws {
        let folder = TemporaryFolder()
        folder.write("1.plist", "garbage")
        folder.write("2.plist", appPlist("com.acme.good", schemes: ["good"]))
        folder.write("3.plist", appPlist("$(PRODUCT_BUNDLE_IDENTIFIER)"))
        #expect(mkfifo(folder.url("4.plist"), 0o644) == 0)
        folder.write("5.plist", appPlist("com.acme.also", schemes: ["also"]))
        folder.write("notes.txt", "not a manifest name: skipped")
        folder.write(".hidden.plist", "skipped")
        let result = ManifestLoader().load(folders: [folder.path])
        #expect(result.files.count == 5)
        let registry = Registry.build(files: result.files, previous: Registry(types: TypeGraph(mimeDatabase: .empty))).registry
        #expect(registry.applications.keys.sorted() == ["com.acme.also", "com.acme.good"])
        #expect(registry.diagnostics.filter { $0.severity == .error }.count == 3)
    }

    @Test func sameBundleIdentifierInTwoFilesKeepsTheFirst() {
        let one = TemporaryFolder(), two = TemporaryFolder()
        let first = one.write("x.plist", appPlist("com.acme.same", schemes: ["first"]))
        let second = two.write("a.plist", appPlist("com.acme.same", schemes: ["second"]))
        let result = ManifestLoader().load(folders: [one.path, two.path])
        let registry = Registry.build(files: result.files, previous: Registry(types: TypeGraph(mimeDatabase: .empty))).registry
        #expect(registry.application(bundleIdentifier: "com.acme.same")?.path == first)
        let d = registry.diagnostics.first { $0.code == .duplicateBundleIdentifier }
        #expect(d?.file == second)
        #expect(d?.keyPath == "CFBundleIdentifier")
        #expect(d?.message.contains(first) == true)
    }

    @Test func brokenEditKeepsTheLastGoodVersion() throws {
        let folder = TemporaryFolder()
        let path = folder.write("app.plist", appPlist("com.acme.app", schemes: ["app"]))
        let loader = ManifestLoader()
        let (first, _) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: Registry(types: TypeGraph(mimeDatabase: .empty)))
        folder.write("app.plist", "<plist><dict><key>CFBundleIdentifier</key>")  // a half-saved edit
        let (second, change) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: first)
        #expect(second.handlers(forScheme: "app").bundleIdentifiers == ["com.acme.app"])
        #expect(change.removed.isEmpty)
        #expect(second.diagnostics.map(\.code).contains(.keptLastGoodVersion))
        #expect(second.diagnostics.allSatisfy { $0.file == path })
        // Fixing the file replaces the kept version.
        folder.write("app.plist", appPlist("com.acme.app", schemes: ["app2"]))
        let (third, fixed) = Registry.build(files: loader.load(folders: [folder.path]).files, previous: second)
        #expect(third.handlers(forScheme: "app2").bundleIdentifiers == ["com.acme.app"])
        #expect(fixed.updated == ["com.acme.app"])
        #expect(third.diagnostics.isEmpty)
    }

    @Test func aSingleFileCanStandForAFolder() {
        let folder = TemporaryFolder()
        let file = folder.write("Info.plist", appPlist("com.acme.single", schemes: ["single"]))
        folder.write("other.plist", appPlist("com.acme.other"))
        let result = ManifestLoader().load(folders: [file])
        #expect(result.files.map { $0.manifest?.bundleIdentifier.rawValue } == ["com.acme.single"])
        #expect(result.diagnostics.isEmpty)
    }

    @Test func missingNamedFolderIsReportedButDefaultFoldersAreNot() {
        let loader = ManifestLoader()
        #expect(loader.load(folders: ["/nonexistent/courier"]).diagnostics.map(\.code) == [.missingFolder])
        #expect(loader.load(folders: ["/nonexistent/courier"], reportMissing: false).diagnostics.isEmpty)
    }

    @Test func theExampleManifestsLoadWithoutErrors() throws {
        let result = ManifestLoader().load(folders: [schemesFolder])
        #expect(result.files.count >= 4)
        #expect(result.files.allSatisfy { $0.diagnostics.isEmpty }, "\(result.files.flatMap(\.diagnostics))")
        let todolist = try #require(result.files.first { $0.manifest?.bundleIdentifier.rawValue == "com.acme.todolist" }?.manifest)
        #expect(todolist.schemes == ["todolist"])
        #expect(todolist.launchCommand?.executable == .searchPath("todolist"))
        #expect(todolist.documentTypes == [DocumentTypeDeclaration(name: "Plain text task list", contentTypes: ["public.plain-text"], role: .editor, rank: .owner)])
        #expect(todolist.queriesSchemes.isEmpty == false)
        let format = try #require(try todolist.urlFormatValue())
        #expect(format.schemes.map(\.name) == ["todolist"])
    }
}
