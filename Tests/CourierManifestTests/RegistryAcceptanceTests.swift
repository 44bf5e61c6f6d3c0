import BusTestSupport
import Foundation
import Testing
@testable import CourierManifest
import CourierTypes

/// Whether an app's manifest accepts a file, by the file's content and the app's document types.
@Suite struct RegistryAcceptanceTests {
    @Test func inboxCheckTellsWhetherAnAppAcceptsTheFile() throws {
        let folder = TemporaryFolder()
        let path = folder.write("list.txt", "Buy milk\n")
        var registry = Registry(types: TypeGraph(mimeDatabase: .system))
        try registry.register(manifest("com.acme.todolist", documents: [("public.plain-text", .owner)]))
        try registry.register(manifest("com.acme.photos", documents: [("public.image", .owner)]))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let todo = registry.acceptance(ofFileNamed: "list.txt", fileDescriptor: fd, by: "com.acme.todolist")
        #expect(todo.documentType?.name == "public.plain-text")
        let photos = registry.acceptance(ofFileNamed: "list.txt", fileDescriptor: fd, by: "com.acme.photos")
        #expect(photos.documentType == nil)
        #expect(photos.identification.typeIdentifier.hasPrefix("public."))
    }
}
