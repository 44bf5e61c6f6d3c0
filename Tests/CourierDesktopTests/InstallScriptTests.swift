import BusTestSupport
import Foundation
import Testing

/// scripts/install then scripts/uninstall into a temporary prefix leaves it as it was. Uses the
/// binaries of the build that runs the tests (`--bin-dir`), so nothing is built here.
@Suite struct InstallScriptTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    /// The folder of the running test executable: the build's products, courier among them.
    static let binDirectory = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        .map { ($0 as NSString).deletingLastPathComponent } ?? ""
    static let built = FileManager.default.isExecutableFile(atPath: binDirectory + "/courier")
        && FileManager.default.isExecutableFile(atPath: binDirectory + "/courier-tool")
        && FileManager.default.isExecutableFile(atPath: binDirectory + "/courier-nearby")
        && FileManager.default.isExecutableFile(atPath: binDirectory + "/courierd")
        && FileManager.default.isExecutableFile(atPath: binDirectory + "/todolist")

    /// Every path under `root` with a digest of its content (folders as "dir").
    func snapshot(_ root: String) -> [String: String] {
        var result: [String: String] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: root)! {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
            result[path] = isDirectory.boolValue ? "dir" : (FileManager.default.contents(atPath: root + "/" + path)?.base64EncodedString() ?? "?")
        }
        return result
    }

    @Test(.enabled(if: built, "courier and courierd are not built beside the tests"))
    func installThenUninstallLeavesThePrefixAsItWas() async throws {
        let home = try TemporaryDesktopHome()
        let prefix = home.root + "/prefix"
        try home.write("mine\n", to: prefix + "/share/keep.txt")
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        let before = snapshot(prefix)
        // Only the temporary home: uninstall also cleans Courier's run-time files in the XDG homes.
        let environment = home.environment()

        let install = try await run("/bin/bash", [Self.repository + "/scripts/install", "--prefix", prefix, "--bin-dir", Self.binDirectory], environment: environment)
        #expect(install.status == 0)
        let installed = snapshot(prefix)
        let expected = [
            "bin/courier", "libexec/courier/courier-tool", "libexec/courier/courier-nearby", "bin/courierd", "bin/todolist", "share/dbus-1/services/org.courier.Broker.service",
            "share/systemd/user/courierd.service", "share/bash-completion/completions/courier",
            "share/zsh/site-functions/_courier", "share/fish/vendor_completions.d/courier.fish",
            "share/courier/install-manifest",
        ]
        for path in expected { #expect(installed[path] != nil, "\(path) was not installed") }
        if FileManager.default.isExecutableFile(atPath: Self.binDirectory + "/generate-manual") {
            #expect(installed["share/man/man1/courier.1"] != nil, "the man page was not installed")
        }

        let manifest = String(decoding: home.read(prefix + "/share/courier/install-manifest") ?? Data(), as: UTF8.self)
        let listedFiles = Set(manifest.split(separator: "\n").filter { $0.hasPrefix("f ") }.map { String($0.dropFirst(2)) })
        let newFiles = Set(installed.filter { $0.value != "dir" && before[$0.key] == nil }.map { prefix + "/" + $0.key })
        #expect(listedFiles == newFiles, "the manifest must list every installed file")

        let service = String(decoding: home.read(prefix + "/share/dbus-1/services/org.courier.Broker.service") ?? Data(), as: UTF8.self)
        #expect(service.contains("\nName=org.courier.Broker\nExec=\(prefix)/bin/courierd --started-by=bus-activation\n"))
        // The substitution is made in Exec only: no comment names the folder, none keeps the placeholder.
        #expect(service.components(separatedBy: prefix + "/bin").count == 2 && !service.contains("@bindir@"), "\(service)")
        let unit = String(decoding: home.read(prefix + "/share/systemd/user/courierd.service") ?? Data(), as: UTF8.self)
        #expect(unit.contains("\nType=dbus\nBusName=org.courier.Broker\nExecStart=\(prefix)/bin/courierd --started-by=systemd\n"))
        let syntax = try await run("/bin/bash", ["-n", prefix + "/share/bash-completion/completions/courier"], environment: environment)
        #expect(syntax.status == 0)

        let uninstall = try await run("/bin/bash", [Self.repository + "/scripts/uninstall", "--prefix", prefix], environment: environment)
        #expect(uninstall.status == 0)
        #expect(snapshot(prefix) == before)
    }

    /// A user's session after the quick start: the broker and the app it launched running from the
    /// prefix, desktop entries and `mimeapps.list` defaults written, logs. Uninstall stops both
    /// processes, removes the entries, puts `mimeapps.list` back byte for byte but for the default
    /// the user chose for a desktop application, and leaves no Courier file in the home but the
    /// app's documents and the user's choices.
    @Test(.enabled(if: built, "courier and courierd are not built beside the tests"))
    func uninstallStopsWhatRunsAndUndoesTheDesktopIntegration() async throws {
        let home = try TemporaryDesktopHome()
        let prefix = home.root + "/prefix"
        let mimeapps = home.directories.configHome + "/mimeapps.list"
        let mine = "[Default Applications]\nx-scheme-handler/https=firefox.desktop\n"
        try home.write(mine, to: mimeapps)
        let bus = try PrivateSessionBus(folder: home.root + "/bus", environment: home.environment())
        var environment = home.environment(display: true, path: prefix + "/bin:/usr/bin:/bin")
        environment["XDG_STATE_HOME"] = home.root + "/state"
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address

        #expect(try await run("/bin/bash", [Self.repository + "/scripts/install", "--prefix", prefix, "--bin-dir", Self.binDirectory], environment: environment).status == 0)
        let register = try await run(prefix + "/bin/courier", ["register", Self.repository + "/Schemes/com.acme.todolist.plist"], environment: environment)
        #expect(register.status == 0 && register.output.contains("(launch: \(prefix)/bin/todolist)"), "\(register.output)")
        let open = try await run(prefix + "/bin/courier", ["open", "todolist://www.acme.com?Quarterly%20Report#200806231300"], environment: environment)
        #expect(open.status == 0)
        let running = Self.processes(runningFrom: prefix + "/bin/")
        #expect(Set(running.values) == [prefix + "/bin/courierd", prefix + "/bin/todolist"], "\(running)")
        #expect(FileManager.default.fileExists(atPath: home.directories.dataHome + "/applications/courier-com.acme.todolist.desktop"))
        #expect(String(decoding: home.read(mimeapps) ?? Data(), as: UTF8.self) != mine)
        // A default the user sets to a desktop application is theirs: uninstall keeps it, and says so.
        try home.write("[Desktop Entry]\nType=Application\nName=Web\nExec=/bin/true %u\nMimeType=text/html;\n", to: home.directories.applications + "/web.desktop")
        let web = try await run(prefix + "/bin/courier", ["default", "--type", "text/html", "web.desktop"], environment: environment)
        #expect(web.status == 0, "\(web.output)")

        let uninstall = try await BackgroundProcess.run("/bin/bash", [Self.repository + "/scripts/uninstall", "--prefix", prefix], environment: environment)
        #expect(uninstall.status == 0)
        // It names what it stopped, and only that: no courier-nearby ran.
        #expect(uninstall.errors.contains("uninstall: stopped courierd, the apps it launched"), "\(uninstall.errors)")
        #expect(!uninstall.errors.contains("courier-nearby"), "\(uninstall.errors)")
        #expect(Self.processes(runningFrom: prefix + "/bin/").isEmpty)
        for pid in running.keys { #expect(kill(pid, 0) != 0, "pid \(pid) still runs") }
        #expect(!FileManager.default.fileExists(atPath: home.directories.dataHome + "/applications/courier-com.acme.todolist.desktop"))
        #expect(String(decoding: home.read(mimeapps) ?? Data(), as: UTF8.self) == mine + "text/html=web.desktop\n")
        #expect(uninstall.errors.contains("kept in mimeapps.list the defaults you chose for desktop applications: text/html=web.desktop"), "\(uninstall.errors)")
        #expect(!FileManager.default.fileExists(atPath: home.root + "/state/courier"))
        #expect(!FileManager.default.fileExists(atPath: home.directories.configHome + "/courier/claims.json"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/courier"))
        // Kept: the app's documents (and the manifest still registered, said so).
        #expect(FileManager.default.fileExists(atPath: home.directories.dataHome + "/courier/containers/com.acme.todolist/Documents/todolist.json"))
        withExtendedLifetime(bus) {}
    }

    /// pid → executable of this user's processes whose executable is under `folder` (or was, and
    /// has been deleted since).
    static func processes(runningFrom folder: String) -> [Int32: String] {
        var found: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe") else { continue }
            let path = exe.hasSuffix(" (deleted)") ? String(exe.dropLast(" (deleted)".count)) : exe
            if path.hasPrefix(folder) { found[pid] = path }
        }
        return found
    }

    @Test func uninstallWithoutAnInstallRefusesAndTouchesNothing() async throws {
        let home = try TemporaryDesktopHome()
        let result = try await run("/bin/bash", [Self.repository + "/scripts/uninstall", "--prefix", home.root], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 66)
    }
}
