import Foundation
import Testing

/// scripts/readme-quickstart reads the commands it runs from the README (`--blocks` prints them):
/// every `sh` block under the three quick-start headings, in order, nothing else, with the lines
/// that end in `# not run in CI` left out; a README without one of the headings fails.
@Suite struct ReadmeQuickstartScriptTests {
    static let script = InstallScriptTests.repository + "/scripts/readme-quickstart"

    func blocks(_ readme: String) async throws -> (status: Int32, output: String) {
        try await run("/bin/bash", ["-c", "\"$0\" --blocks \"$1\" 2>&1", Self.script, readme], environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test func theBlocksUnderTheThreeHeadingsInOrderWithoutTheMarkedLines() async throws {
        let home = try TemporaryDesktopHome()
        let readme = home.root + "/README.md"
        try home.write("""
            # Title
            ```sh
            echo not-a-quick-start
            ```
            ## Quick start for shell users
            ```sh
            echo one            # a comment stays
            xdg-open x://y      # not run in CI
            ```
            ```swift
            let swift = "not run"
            ```
            ## Quick start for app developers
            ```sh
            echo two
            ```
            ## Uninstall
            ```sh
            echo three
            ```
            ## Documentation
            ```sh
            echo never
            ```

            """, to: readme)
        let result = try await blocks(readme)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "### block 01\necho one            # a comment stays\n:\n### block 02\necho two\n### block 03\necho three\n", "\(result.output)")

        try home.write("## Quick start for shell users\n```sh\necho one\n```\n## Uninstall\n```sh\necho bye\n```\n", to: readme)
        let missing = try await blocks(readme)
        #expect(missing.status == 1)
        #expect(missing.output.contains("has no ```sh block under '## Quick start for app developers'"), "\(missing.output)")
    }

    /// A block that exits 0 but prints an error (here what an unquoted heredoc's `courier open`
    /// substitution printed) fails the run; progress on standard error and the `-x` trace do not.
    @Test func anErrorOnStandardErrorFailsABlock() async throws {
        let home = try TemporaryDesktopHome()
        try home.write("+ cat\nError: Missing expected argument '<url>...'\n", to: home.root + "/bad.txt")
        try home.write("+ scripts/install\ninstall: building in release mode\n[3/5] Compiling hello Hello.swift\nBuild complete! (3.10s)\n", to: home.root + "/good.txt")
        let bad = try await run("/bin/bash", [Self.script, "--check-stderr", home.root + "/bad.txt"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(bad.status == 1 && bad.output.contains("Missing expected argument"), "\(bad.output)")
        let good = try await run("/bin/bash", [Self.script, "--check-stderr", home.root + "/good.txt"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(good.status == 0, "\(good.output)")
    }

    /// The quick starts write files with quoted heredocs only: in an unquoted one the shell runs
    /// `…` and expands $… while writing the file.
    @Test func theReadmesHeredocsAreQuoted() async throws {
        let result = try await blocks(InstallScriptTests.repository + "/README.md")
        let unquoted = result.output.split(separator: "\n").filter { $0.range(of: #"<<-?[A-Za-z_]"#, options: .regularExpression) != nil }
        #expect(unquoted.isEmpty, "\(unquoted)")
    }

    @Test func theRepositorysReadmeHasTheBlocks() async throws {
        let result = try await blocks(InstallScriptTests.repository + "/README.md")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.components(separatedBy: "### block ").count - 1 >= 3, "\(result.output)")
    }
}
