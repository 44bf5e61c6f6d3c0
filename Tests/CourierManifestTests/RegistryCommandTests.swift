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

    func run(_ arguments: [String], config: TemporaryFolder) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.courier, "build the courier product first"))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = config.path
        env["XDG_DATA_HOME"] = config.path + "/data"
        env["COURIER_MANIFEST_PATH"] = nil
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self), error: String(decoding: error, as: UTF8.self))
    }

    @Test(.enabled(if: courier != nil)) func dumpJSONListsTheExamplesInDecisionOrder() throws {
        let config = TemporaryFolder()
        let r = try run(["dump", "--json", "--manifests", schemesFolder], config: config)
        #expect(r.status == 0, "\(r.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let schemes = try #require(json["schemes"] as? [String: [String]])
        #expect(schemes["todolist"]?.first == "com.acme.todolist")
        #expect(schemes["mailto"] == [])
        let apps = try #require(json["applications"] as? [[String: Any]])
        #expect(apps.compactMap { $0["bundleIdentifier"] as? String }.contains("com.acme.todolist"))
        #expect(FileManager.default.fileExists(atPath: config.path + "/courier/claims.json"))
    }

    @Test(.enabled(if: courier != nil)) func handlersExplainAndDefaultChangesTheChoice() throws {
        let config = TemporaryFolder()
        let url = "todolist://www.acme.com?Quarterly%20Report#200806231300"
        var r = try run(["handlers", url, "--manifests", schemesFolder], config: config)
        #expect(r.status == 0)
        #expect(r.output.split(separator: "\n").first == "com.acme.todolist")
        r = try run(["handlers", "todolist", "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.contains("rank Default is below Owner"))
        r = try run(["default", "todolist", "org.example.tasks", "--manifests", schemesFolder], config: config)
        #expect(r.status == 0, "\(r.error)")
        r = try run(["handlers", "todolist", "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.hasPrefix("1. org.example.tasks — chosen: the user's default"))
        r = try run(["default", "todolist", "org.example.viewer", "--manifests", schemesFolder], config: config)
        #expect(r.status == 65)
        #expect(r.error.contains("does not claim"))
    }

    @Test(.enabled(if: courier != nil)) func handlersRefusesInvalidSchemesAndSaysWhenNobodyHandles() throws {
        let config = TemporaryFolder()
        #expect(try run(["handlers", "1bad:x", "--manifests", schemesFolder], config: config).status == 65)
        let spaced = try run(["handlers", "todolist://www.acme.com?Quarterly Report", "--manifests", schemesFolder], config: config)
        #expect(spaced.status == 65)
        #expect(spaced.error.contains("offset"))
        #expect(try run(["handlers", "mailto", "--manifests", schemesFolder], config: config).status == 3)
    }

    @Test(.enabled(if: courier != nil)) func handlersForAFileUseItsContent() throws {
        let config = TemporaryFolder()
        let file = config.write("holiday.txt", bytes: TypeTests.png)
        let r = try run(["handlers", "--type", file, "--explain", "--manifests", schemesFolder], config: config)
        #expect(r.output.contains("public.png"))
        #expect(r.output.contains("org.example.viewer — chosen"))
    }
}
