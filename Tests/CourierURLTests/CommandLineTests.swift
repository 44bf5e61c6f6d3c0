import BusTestSupport
import Foundation
import Testing

/// `courier parse` and `todolist decode`, run as the built executables.
struct CommandLineTests {
    /// The build folder holding the executables next to this test bundle.
    static let binaries: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("courier").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url
    }()

    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs a built tool to completion (`BackgroundProcess`: output in files, never two pipes read
    /// one after the other).
    func run(_ tool: String, _ arguments: [String]) async throws -> Run {
        let completed = try await BackgroundProcess.run(Self.binaries.appendingPathComponent(tool).path, arguments,
                                                         environment: ProcessInfo.processInfo.environment)
        return Run(status: completed.status, output: completed.output, error: completed.errors)
    }

    var toolsAreBuilt: Bool {
        FileManager.default.isExecutableFile(atPath: Self.binaries.appendingPathComponent("courier").path)
            && FileManager.default.isExecutableFile(atPath: Self.binaries.appendingPathComponent("todolist").path)
    }

    @Test func parsePrintsRawComponentsAsJSON() async throws {
        try #require(toolsAreBuilt, "build the executables first (swift build)")
        let run = try await run("courier", ["parse", "--json", "TodoList://me:pw:x@www.acme.com:8080/p?Quarterly%20Report#200806231300"])
        #expect(run.status == 0)
        #expect(run.output == #"{"scheme":"todolist","user":"me","password":"pw:x","host":"www.acme.com","port":8080,"path":"/p","query":"Quarterly%20Report","fragment":"200806231300","uri":"TodoList://me:pw:x@www.acme.com:8080/p?Quarterly%20Report#200806231300","iri":"TodoList://me:pw:x@www.acme.com:8080/p?Quarterly%20Report#200806231300"}"# + "\n")
        let bare = try await self.run("courier", ["parse", "--json", "mailto:a@b"])
        #expect(bare.output == #"{"scheme":"mailto","user":null,"password":null,"host":null,"port":null,"path":"a@b","query":null,"fragment":null,"uri":"mailto:a@b","iri":"mailto:a@b"}"# + "\n")
    }

    /// An IRI: the components of the URI it maps to, and both forms.
    @Test func parseMapsAnIRIAndPrintsBothForms() async throws {
        try #require(toolsAreBuilt)
        let run = try await run("courier", ["parse", "--json", "https://例え.jp/パス?q=値"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == #"{"scheme":"https","user":null,"password":null,"host":"xn--r8jz45g.jp","port":null,"path":"/%E3%83%91%E3%82%B9","query":"q=%E5%80%A4","fragment":null,"uri":"https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4","iri":"https://例え.jp/パス?q=値"}"# + "\n")
        let refused = try await self.run("courier", ["parse", "todolist://www.acme.com?Café Report"])
        #expect(refused.status == 65)
        #expect(refused.error.contains("space at offset 29 is not allowed in a query"), "\(refused.error)")
        #expect(refused.error.contains("the URL it would accept: todolist://www.acme.com?Caf%C3%A9%20Report"), "\(refused.error)")
        let bidi = try await self.run("courier", ["parse", "todolist://x?a\u{202E}b"])
        #expect(bidi.status == 65)
        #expect(bidi.error.contains("\\u{202E} (a bidirectional formatting character) at offset 14"), "\(bidi.error)")
        #expect(!bidi.error.unicodeScalars.contains("\u{202E}"), "the refusal does not print the character itself")
    }

    @Test func parseRefusesAnInvalidURLWithExit65AndAPosition() async throws {
        try #require(toolsAreBuilt)
        let run = try await run("courier", ["parse", "todolist://www.acme.com?Quarterly Report"])
        #expect(run.status == 65)
        #expect(run.error.contains("space at offset 33 is not allowed in a query; escape it as %20"))
        #expect(run.output.isEmpty)
        let dash = try await self.run("courier", ["parse", "--", "-x"])
        #expect(dash.status == 0)
    }

    @Test func todolistDecodePrintsTaskAndLocalDue() async throws {
        try #require(toolsAreBuilt)
        let run = try await run("todolist", ["decode", "--json", "todolist://www.acme.com?Quarterly%20Report#200806231300"])
        #expect(run.status == 0)
        #expect(run.output == #"{"task":"Quarterly Report","due":"2008-06-23T13:00"}"# + "\n")
    }

    @Test func todolistDecodeRejectsWithExit65AndTheReason() async throws {
        try #require(toolsAreBuilt)
        let run = try await run("todolist", ["decode", "todolist://www.acme.com?Task#200802301300"])
        #expect(run.status == 65)
        #expect(run.error.contains("30 February 2008 does not exist"))
    }
}
