import Foundation
import Testing

/// scripts/bootstrap on a fresh machine, with stand-ins for the system tools it calls (`dpkg-query`
/// that finds nothing installed, `id`, `apt-get` that records its arguments) on a PATH that has
/// nothing else: never sudo as root, a clear instruction without sudo, the same package list as CI,
/// and a pointer to the Swift toolchain when `swift` is missing.
@Suite struct BootstrapScriptTests {
    static let script = InstallScriptTests.repository + "/scripts/bootstrap"

    /// A PATH folder with `bash`, `grep`, `cat`, `env` and the stand-ins; returns the folder.
    func fakeMachine(_ home: TemporaryDesktopHome, uid: Int, sudo: Bool, swift: Bool) throws -> String {
        let bin = home.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in ["bash", "grep", "cat", "env"] {
            let real = ["/usr/bin/" + tool, "/bin/" + tool].first { FileManager.default.isExecutableFile(atPath: $0) }!
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: real)
        }
        var tools = [
            "dpkg-query": "exit 1",
            "id": "echo \(uid)",
            "apt-get": "echo \"$*\" >> \(home.root)/apt-get.log",
        ]
        if sudo { tools["sudo"] = "echo sudo >> \(home.root)/apt-get.log; exec \"$@\"" }
        if swift { tools["swift"] = "exit 0" }
        for (name, body) in tools {
            try home.write("#!/bin/bash\n\(body)\n", to: bin + "/" + name)
            chmod(bin + "/" + name, 0o755)
        }
        return bin
    }

    func bootstrap(_ bin: String) async throws -> (status: Int32, output: String) {
        try await run("/bin/bash", ["-c", "\"$0\" 2>&1", Self.script], environment: ["PATH": bin, "HOME": "/nonexistent"])
    }

    @Test func asRootItInstallsTheCIListWithoutSudoAndPointsToSwift() async throws {
        let home = try TemporaryDesktopHome()
        let result = try await bootstrap(try fakeMachine(home, uid: 0, sudo: true, swift: false))
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.contains("bootstrap: swift is not on PATH. Courier needs the Swift toolchain, 6.1 or newer"), "\(result.output)")
        #expect(result.output.contains("https://www.swift.org/install/linux/"))
        let list = try await run("/bin/bash", [Self.script, "--list"], environment: ["PATH": "/usr/bin:/bin"])
        let packages = list.output.split(separator: "\n").joined(separator: " ")
        #expect(packages.contains("libdbus-1-dev") && packages.contains("binutils"))
        let log = String(decoding: home.read(home.root + "/apt-get.log") ?? Data(), as: UTF8.self)
        #expect(log == "update\ninstall -y \(packages)\n", "\(log)")
        // CI installs exactly this list.
        let ci = try String(contentsOfFile: InstallScriptTests.repository + "/.ci/run", encoding: .utf8)
        #expect(ci.contains("apt-get install -y $(scripts/bootstrap --list)"))
    }

    @Test func withoutRootOrSudoItSaysWhatToRun() async throws {
        let home = try TemporaryDesktopHome()
        let result = try await bootstrap(try fakeMachine(home, uid: 1000, sudo: false, swift: true))
        #expect(result.status == 77, "\(result.output)")
        #expect(result.output.contains("bootstrap: not root and sudo is not installed; as root, run: apt-get update && apt-get install -y pkg-config libdbus-1-dev"), "\(result.output)")
        #expect(home.read(home.root + "/apt-get.log") == nil)

        let withSudo = try TemporaryDesktopHome()
        let sudoResult = try await bootstrap(try fakeMachine(withSudo, uid: 1000, sudo: true, swift: true))
        #expect(sudoResult.status == 0, "\(sudoResult.output)")
        let log = String(decoding: withSudo.read(withSudo.root + "/apt-get.log") ?? Data(), as: UTF8.self)
        #expect(log.hasPrefix("sudo\nupdate\nsudo\ninstall -y pkg-config"), "\(log)")
    }
}
