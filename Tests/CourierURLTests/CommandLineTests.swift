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
        #expect(run.output == #"{"scheme":"todolist","user":"me","password":"pw:x","host":"www.acme.com","port":8080,"path":"/p","query":"Quarterly%20Report","fragment":"200806231300"}"# + "\n")
        let bare = try await self.run("courier", ["parse", "--json", "mailto:a@b"])
        #expect(bare.output == #"{"scheme":"mailto","user":null,"password":null,"host":null,"port":null,"path":"a@b","query":null,"fragment":null}"# + "\n")
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
