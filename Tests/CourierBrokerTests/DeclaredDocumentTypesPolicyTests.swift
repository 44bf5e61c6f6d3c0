import CourierBroker
import CourierInbox
import CourierManifest
import CourierNames
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The default policy: a file is accepted when its type, by name and by content, conforms to a
/// document type the app declares.
@Suite struct DeclaredDocumentTypesPolicyTests {
    static let todolist = "com.acme.todolist"

    static func registry() throws -> Registry {
        var registry = Registry()
        _ = try registry.register(Manifest(bundleIdentifier: try BundleIdentifier(todolist), documentTypes: [
            DocumentTypeDeclaration(name: "Plain text task list", contentTypes: ["public.plain-text"], role: .editor, rank: .owner),
        ]))
        return registry
    }

    /// Drops a file holding `contents` as `name` into `bundle`'s Inbox under `scratch`'s `containers`.
    func drop(_ scratch: TemporaryDirectory, name: String, contents: [UInt8], to bundle: String = todolist) throws -> [DeliveredFile] {
        let source = scratch.url.appendingPathComponent("source").path
        _ = FileManager.default.createFile(atPath: source, contents: Data(contents))
        let policy = DeclaredDocumentTypesPolicy(registry: try Self.registry(), bundleIdentifier: bundle)
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        return try Self.inbox(scratch).drop([DropFile(descriptor: fd, suggestedName: name)], to: bundle, typePolicy: policy)
    }

    static func inbox(_ scratch: TemporaryDirectory) -> Inbox { Inbox(containersRoot: scratch.url.path + "/containers") }

    @Test(arguments: [("tasks.txt", "milk\neggs\n"), ("notes.md", "# Groceries\n- milk\n"), ("empty.txt", "")])
    func declaredTextIsAccepted(name: String, text: String) throws {
        let scratch = TemporaryDirectory()
        #expect(try drop(scratch, name: name, contents: Array(text.utf8)).map(\.name) == [name])
    }

    @Test func undeclaredTypeIsRefusedNamingTheType() {
        let scratch = TemporaryDirectory()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "photo.png", contents: png) }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("public.png") == true)
        #expect(error?.message.contains("public.plain-text") == true)
        #expect(!FileManager.default.fileExists(atPath: Self.inbox(scratch).containersRoot), "nothing was written")
    }

    @Test func aLyingExtensionDoesNotFoolTheCheck() {
        let scratch = TemporaryDirectory()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "tasks.txt", contents: png) }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("public.png") == true)
    }

    @Test func anAppWithoutAManifestAcceptsNothing() {
        let scratch = TemporaryDirectory()
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "a.txt", contents: Array("x".utf8), to: "com.acme.unknown") }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("no registered manifest") == true)
    }
}
