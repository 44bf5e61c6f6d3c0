import BusTestSupport
import Foundation
import Testing

/// The systemd user unit of `courier nearby receive` (dist/courier-nearby.service): scripts/install
/// places it, pointing at the installed courier-nearby, without enabling it (nothing listens after
/// install); `systemd-analyze verify` finds nothing to say about it; scripts/uninstall removes it.
/// Uses the binaries of the build that runs the tests (`--bin-dir`), into a temporary prefix and home.
@Suite("Nearby: the systemd user unit")
struct NearbyUnitTests {
    static let repository = NearbyFixture.packageRoot.path
    static let unit = "share/systemd/user/courier-nearby.service"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: Products.path("courier-nearby"))
                   && FileManager.default.isExecutableFile(atPath: Products.path("courier-tool")), "the products are not built beside the tests"))
    func installPlacesTheUnitWithoutEnablingItAndUninstallRemovesIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-nearby-unit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let prefix = root + "/prefix", home = root + "/home", runtime = root + "/runtime"
        for folder in [prefix, home, runtime] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
        // No bus address, no user manager: install and uninstall touch only the prefix and this home.
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime,
                           "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share", "XDG_STATE_HOME": home + "/.local/state"]

        let install = try await BackgroundProcess.run("/bin/bash", [Self.repository + "/scripts/install", "--prefix", prefix, "--bin-dir", Products.folder.path],
                                                      environment: environment)
        #expect(install.status == 0, "\(install.errors)")
        let text = try String(contentsOfFile: prefix + "/" + Self.unit, encoding: .utf8)
        #expect(text.contains("\nExecStart=\(prefix)/libexec/courier/courier-nearby receive $COURIER_NEARBY_OPTIONS\n"), "\(text)")
        #expect(!text.contains("@libexecdir@"))
        for hardening in ["NoNewPrivileges=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK", "SystemCallFilter=@system-service",
                          "MemoryDenyWriteExecute=yes", "UMask=0077"] {
            #expect(text.contains("\n\(hardening)\n"), "\(hardening) is missing")
        }
        let manifest = try String(contentsOfFile: prefix + "/share/courier/install-manifest", encoding: .utf8)
        #expect(manifest.contains("f \(prefix)/\(Self.unit)\n"), "\(manifest)")
        // Installed, not enabled: no wants/ link anywhere in the home.
        let links = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String }.filter { $0.contains(".wants/") } ?? []
        #expect(links.isEmpty, "\(links)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = try await BackgroundProcess.run("/usr/bin/systemd-analyze", ["--user", "verify", "--man=no", prefix + "/" + Self.unit], environment: environment)
            #expect(verify.status == 0 && verify.output.isEmpty && verify.errors.isEmpty, "systemd-analyze verify: \(verify.status) \(verify.output)\(verify.errors)")
            // The check can fail: the same unit with a misspelt option is reported.
            let broken = root + "/broken.service"
            try text.replacingOccurrences(of: "NoNewPrivileges=yes", with: "NoNewPrivilege=yes").write(toFile: broken, atomically: true, encoding: .utf8)
            let reported = try await BackgroundProcess.run("/usr/bin/systemd-analyze", ["--user", "verify", "--man=no", broken], environment: environment)
            #expect(reported.errors.contains("Unknown key 'NoNewPrivilege'"), "\(reported.errors)")
        } else {
            Issue.record("systemd-analyze is not installed (Debian's systemd package, in scripts/bootstrap): the unit was not verified")
        }
        // What ExecStart runs takes the receive options the unit documents.
        let help = try await BackgroundProcess.run(prefix + "/libexec/courier/courier-nearby", ["receive", "--help"], environment: environment)
        for option in ["--to", "--pin", "--trusted-only", "--bind", "--port", "--alias"] {
            #expect(help.output.contains(option), "\(option) is not a receive option")
        }

        let uninstall = try await BackgroundProcess.run("/bin/bash", [Self.repository + "/scripts/uninstall", "--prefix", prefix], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.errors)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/" + Self.unit))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/libexec/courier/courier-nearby"))
    }
}
