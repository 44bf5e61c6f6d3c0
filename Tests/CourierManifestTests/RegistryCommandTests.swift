import BusTestSupport
import Foundation
import Testing
@testable import CourierManifest

/// The offline CLI (`courier dump`, `handlers`, `default`) run as a real process on Schemes/.
@Suite struct RegistryCommandTests {
    /// The `courier` executable built beside the test bundle.
    static let courier: String? = {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("courier").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }()

    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `courier` to completion (`BackgroundProcess`: output in files, so a child filling one
    /// stream while the other is read cannot stall).
    func run(_ arguments: [String], config: TemporaryFolder) async throws -> Run {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = config.path
        env["XDG_DATA_HOME"] = config.path + "/data"
        env["COURIER_MANIFEST_PATH"] = nil
        let completed = try await BackgroundProcess.run(try #require(Self.courier, "build the courier product first"), arguments, environment: env)
        return Run(status: completed.status, output: completed.output, error: completed.errors)
    }

    @Test(.enabled(if: courier != nil)) func dumpJSONListsTheExamplesInDecisionOrder() async throws {
        let config = TemporaryFolder()
        let r = try await run(["dump", "--json", "--manifests", schemesFolder], config: config)
        #expect(r.status == 0, "\(r.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let schemes = try #require(json["schemes"] as? [String: [String]])
        #expect(schemes["todolist"]?.first == "com.acme.todolist")
        #expect(schemes["mailto"] == [])
        let apps = try #require(json["applications"] as? [[String: Any]])
        #expect(apps.compactMap { $0["bundle_id"] as? String }.contains("com.acme.todolist"))
        #expect(FileManager.default.fileExists(atPath: config.path + "/courier/claims.json"))
    }

    @Test(.enabled(if: courier != nil)) func handlersExplainAndDefaultChangesTheChoice() async throws {
        let config = TemporaryFolder()
        let url = "todolist://www.acme.com?Quarterly%20Report#200806231300"
        var r = try await run(["handlers", url, "--manifests", schemesFolder], config: config)
        #expect(r.status == 0)
        #expect(r.output.split(separator: "\n").first == "com.acme.todolist")
        r = try await run(["handlers", "todolist", "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.contains("rank Default is below Owner"))
        r = try await run(["default", "todolist", "org.example.tasks", "--manifests", schemesFolder], config: config)
        #expect(r.status == 0, "\(r.error)")
        r = try await run(["handlers", "todolist", "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.hasPrefix("1. org.example.tasks — chosen: the user's default"))
        r = try await run(["default", "todolist", "org.example.viewer", "--manifests", schemesFolder], config: config)
        #expect(r.status == 65)
        #expect(r.error.contains("does not claim"))
    }

    @Test(.enabled(if: courier != nil)) func handlersRefusesInvalidSchemesAndSaysWhenNobodyHandles() async throws {
        let config = TemporaryFolder()
        #expect(try await run(["handlers", "1bad:x", "--manifests", schemesFolder], config: config).status == 65)
        let spaced = try await run(["handlers", "todolist://www.acme.com?Quarterly Report", "--manifests", schemesFolder], config: config)
        #expect(spaced.status == 65)
        #expect(spaced.error.contains("offset"))
        let mailto = try await run(["handlers", "mailto", "--manifests", schemesFolder], config: config)
        #expect(mailto.status == 3 && mailto.error.contains("mailto is reserved") && mailto.error.contains("courier default mailto"), "\(mailto.error)")
        let typo = try await run(["handlers", "todolst", "--manifests", schemesFolder], config: config)
        #expect(typo.status == 3 && typo.error.contains("did you mean todolist:?"), "\(typo.error)")
    }

    /// `quit` and `default` complete registered bundle ids; the desktop entries' internal flag is
    /// not shown to people.
    @Test(.enabled(if: courier != nil)) func completionsOfferBundleIDsAndHelpHidesTheInternalFlag() async throws {
        let config = TemporaryFolder()
        let script = try await run(["--generate-completion-script", "bash"], config: config)
        #expect(script.output.contains("---completion quit -- positional@0"))
        #expect(script.output.contains("---completion default -- positional@0"))
        let help = try await run(["open", "--help"], config: config)
        #expect(help.status == 0 && !help.output.contains("desktop-entry"), "\(help.output)")
    }

    /// A folder is not a document: without the desktop to show it, `open` says so (10, as `drop`).
    @Test(.enabled(if: courier != nil)) func openingAFolderWithoutTheDesktopSaysItIsAFolder() async throws {
        let config = TemporaryFolder()
        let r = try await run(["open", config.path, "--no-fallback"], config: config)
        #expect(r.status == 10 && r.error.contains("is a folder, not a file") && !r.error.contains("public.data"), "\(r.error)")
    }

    /// An app nothing registers is "no such app" (3) for `default` as for every command.
    @Test(.enabled(if: courier != nil)) func defaultForAnUnknownAppIsNoSuchApp() async throws {
        let config = TemporaryFolder()
        let r = try await run(["default", "todolist", "com.acme.nothing", "--manifests", schemesFolder], config: config)
        #expect(r.status == 3 && r.error.contains("com.acme.nothing"), "\(r.error)")
    }

    @Test(.enabled(if: courier != nil)) func handlersForAFileUseItsContent() async throws {
        let config = TemporaryFolder()
        let file = config.write("holiday.txt", bytes: SampleContent.png)
        let r = try await run(["handlers", "--type", file, "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.contains("public.png"))
        #expect(r.output.contains("org.example.viewer — chosen"))
    }
}
