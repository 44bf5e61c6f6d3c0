@testable import CourierBroker
import CourierManifest
import CourierNames
import Foundation
import Synchronization
import Testing

/// Who may change the registry, and the takeovers no change makes silently: pure, on registry values.
@Suite("RegistryAuthority")
struct RegistryAuthorityTests {
    static func app(_ id: String, executable: String, schemes: [String: HandlerRank] = [:]) -> Manifest {
        Manifest(bundleIdentifier: try! BundleIdentifier(id), urlTypes: schemes.sorted { $0.key < $1.key }.map { URLTypeDeclaration(schemes: [$0.key], rank: $0.value) },
                 launchCommand: LaunchCommand(arguments: [executable], manifestDirectory: "/"), path: "/m/\(id).plist")
    }

    static func registry(_ apps: [Manifest]) throws -> Registry {
        var registry = Registry()
        for app in apps { _ = try registry.register(app, replacing: true) }
        return registry
    }

    let todolist = app("com.acme.todolist", executable: "/usr/bin/todolist", schemes: ["todolist": .owner])
    let echo = app("com.acme.echo", executable: "/usr/bin/echo-app", schemes: ["echo": .default])

    @Test func repointingARunningAppIsRefusedUnlessConfirmed() throws {
        let current = try Self.registry([todolist, echo])
        let proposed = try Self.registry([Self.app("com.acme.todolist", executable: "/tmp/evil", schemes: ["todolist": .owner]), echo])
        let refused = RegistryAuthority(running: ["com.acme.todolist"]).review(registering: current, as: proposed)
        let message = try #require(refused.refusal)
        #expect(message.contains("com.acme.todolist is running and registered to launch /usr/bin/todolist; this manifest would point it at /tmp/evil"), "\(message)")
        #expect(message.contains("courier register --replace"))
        // Not running: an update like any other. Confirmed: allowed, and the takeover is reported.
        #expect(RegistryAuthority(running: ["com.acme.echo"]).review(registering: current, as: proposed).refusal == nil)
        let confirmed = RegistryAuthority(running: ["com.acme.todolist"], replace: true).review(registering: current, as: proposed)
        #expect(confirmed.refusal == nil)
        #expect(confirmed.takeovers.map(\.bundleID) == ["com.acme.todolist"])
        // The same launch target with other arguments is no takeover.
        var sameBinary = todolist
        sameBinary.launchCommand = LaunchCommand(arguments: ["/usr/bin/todolist", "--verbose"], manifestDirectory: "/")
        #expect(RegistryAuthority(running: ["com.acme.todolist"]).review(registering: current, as: try Self.registry([sameBinary, echo])).refusal == nil)
    }

    @Test func takingASchemeFromARunningAppIsRefusedAndHeldBack() throws {
        let current = try Self.registry([todolist, echo])
        let taker = Self.app("com.evil.taker", executable: "/tmp/evil", schemes: ["echo": .owner])
        let proposed = try Self.registry([todolist, echo, taker])
        #expect(proposed.handlers(forScheme: "echo").chosen?.bundleIdentifier == "com.evil.taker")   // rank Owner beats Default
        let message = try #require(RegistryAuthority(running: ["com.acme.echo"]).review(registering: current, as: proposed).refusal)
        #expect(message.contains("com.acme.echo is running and handles echo: URLs; this manifest would route them to com.evil.taker instead"), "\(message)")
        #expect(RegistryAuthority(running: []).review(registering: current, as: proposed).refusal == nil)
        // From a watched folder: the taker is held back.
        let held = RegistryAuthority.heldReloads(current: current, proposed: proposed, running: ["com.acme.echo"])
        #expect(Array(held.keys) == ["com.evil.taker"])
        // A claim that does not win (todolist's Owner claim came first) takes nothing.
        let loser = try Self.registry([todolist, echo, Self.app("com.evil.loser", executable: "/tmp/evil", schemes: ["todolist": .owner])])
        #expect(RegistryAuthority(running: ["com.acme.todolist"]).review(registering: current, as: loser).refusal == nil)
    }

    @Test func anAppMayRegisterAndUnregisterOnlyItself() throws {
        let current = try Self.registry([todolist])
        let proposed = try Self.registry([todolist, echo])
        let message = try #require(RegistryAuthority(running: [], callerApp: "com.acme.notes").review(registering: current, as: proposed).refusal)
        #expect(message.contains("com.acme.notes (or a process it spawned) may register only its own manifest, not com.acme.echo"), "\(message)")
        #expect(RegistryAuthority(running: [], callerApp: "com.acme.echo").review(registering: current, as: proposed).refusal == nil)
        #expect(RegistryAuthority(running: []).review(registering: current, as: proposed).refusal == nil)   // the user's shell
        #expect(RegistryAuthority(running: [], callerApp: "com.acme.notes").refusal(unregistering: "com.acme.todolist") != nil)
        #expect(RegistryAuthority(running: [], callerApp: "com.acme.todolist").refusal(unregistering: "com.acme.todolist") == nil)
        #expect(RegistryAuthority(running: ["com.acme.todolist"]).refusal(unregistering: "com.acme.todolist") == nil)
    }

    @Test func aReloadHoldsBackAFileThatWouldRepointARunningApp() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-authority-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ executable: String) throws {
            try Data("""
                <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
                <key>CFBundleIdentifier</key><string>com.acme.todolist</string>
                <key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key><array><string>todolist</string></array></dict></array>
                <key>CourierLaunchArguments</key><array><string>\(executable)</string></array>
                </dict></plist>
                """.utf8).write(to: folder.appendingPathComponent("com.acme.todolist.plist"))
        }
        try write("/usr/bin/todolist")
        let service = RegistryService(configuration: .init(folders: [folder.path], reportMissingFolders: false, stateFolder: nil))
        let running = Mutex<Set<String>>(["com.acme.todolist"])
        service.holdingReloads { current, proposed in RegistryAuthority.heldReloads(current: current, proposed: proposed, running: running.withLock { $0 }) }
        try write("/tmp/evil")
        let change = service.reload()
        #expect(change.held.keys.sorted() == ["com.acme.todolist"])
        #expect(change.origin == .manifestFolder)
        #expect(service.snapshot.application(bundleIdentifier: "com.acme.todolist")?.launchCommand?.arguments == ["/usr/bin/todolist"])
        let diagnostic = try #require(service.diagnostics.first { $0.code == .heldRegistryChange })
        #expect(diagnostic.file.hasSuffix("com.acme.todolist.plist"))
        #expect(diagnostic.message.contains("courier register --replace"), "\(diagnostic.message)")
        // Once the app no longer runs, the next reload applies the file.
        running.withLock { $0 = [] }
        #expect(service.reload().updated == ["com.acme.todolist"])
        #expect(service.snapshot.application(bundleIdentifier: "com.acme.todolist")?.launchCommand?.arguments == ["/tmp/evil"])
    }
}
