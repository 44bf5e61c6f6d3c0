import CourierInbox
import CourierManifest
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
        _ = try registry.register(Manifest(bundleIdentifier: todolist, documentTypes: [
            DocumentTypeDeclaration(name: "Plain text task list", contentTypes: ["public.plain-text"], role: .editor, rank: .owner),
        ]))
        return registry
    }

    func drop(_ scratch: Scratch, name: String, contents: [UInt8], to bundle: String = todolist) throws -> [DeliveredFile] {
        let source = scratch.write("source", contents)
        let policy = DeclaredDocumentTypesPolicy(registry: try Self.registry(), bundleIdentifier: bundle)
        return try scratch.withDescriptor(source) { fd in
            try scratch.inbox().drop([DropFile(descriptor: fd, suggestedName: name)], to: bundle, typePolicy: policy)
        }
    }

    @Test(arguments: [("tasks.txt", "milk\neggs\n"), ("notes.md", "# Groceries\n- milk\n"), ("empty.txt", "")])
    func declaredTextIsAccepted(name: String, text: String) throws {
        let scratch = Scratch()
        #expect(try drop(scratch, name: name, contents: Array(text.utf8)).map(\.name) == [name])
    }

    @Test func undeclaredTypeIsRefusedNamingTheType() {
        let scratch = Scratch()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "photo.png", contents: png) }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("public.png") == true)
        #expect(error?.message.contains("public.plain-text") == true)
        #expect(scratch.list(scratch.root) == nil)
    }

    @Test func aLyingExtensionDoesNotFoolTheCheck() {
        let scratch = Scratch()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "tasks.txt", contents: png) }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("public.png") == true)
    }

    @Test func anAppWithoutAManifestAcceptsNothing() {
        let scratch = Scratch()
        let error = #expect(throws: InboxError.self) { try drop(scratch, name: "a.txt", contents: Array("x".utf8), to: "com.acme.unknown") }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("no registered manifest") == true)
    }
}
