import CourierNames
import Testing

/// The one rule by which `courier` (the static front) and `courier-tool` tell URLs from files.
@Suite struct OpenArgumentTests {
    @Test(arguments: ["todolist://www.acme.com?Task", "mailto:a@b.c", "HTTPS://example.org", "x-y+z.1:rest", "urn:isbn:1"])
    func urlsHaveASchemeOtherThanFile(_ argument: String) {
        #expect(OpenArgument.isURL(argument))
    }

    @Test(arguments: ["list.txt", "/tmp/a:b.txt", "./todolist:notes", "file:///tmp/list.txt", "FILE:/tmp/x", "1abc:x", ":x", "", "-a", "my file.pdf", "dir/x:y"])
    func everythingElseIsAFile(_ argument: String) {
        #expect(!OpenArgument.isURL(argument))
    }

    @Test func theSchemeIsLowercased() {
        #expect(OpenArgument.scheme(of: "File:///x") == "file")
        #expect(OpenArgument.scheme(of: "Todo-List+1.x://y") == "todo-list+1.x")
        #expect(OpenArgument.scheme(of: "notes.txt") == nil)
    }
}
