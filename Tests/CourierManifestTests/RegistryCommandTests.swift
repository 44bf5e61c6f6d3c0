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
        #expect(apps.compactMap { $0["bundleIdentifier"] as? String }.contains("com.acme.todolist"))
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
        #expect(try await run(["handlers", "mailto", "--manifests", schemesFolder], config: config).status == 3)
    }

    @Test(.enabled(if: courier != nil)) func handlersForAFileUseItsContent() async throws {
        let config = TemporaryFolder()
        let file = config.write("holiday.txt", bytes: SampleContent.png)
        let r = try await run(["handlers", "--type", file, "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.contains("public.png"))
        #expect(r.output.contains("org.example.viewer — chosen"))
    }
}
