import BusTestSupport
import Foundation
import Testing
@testable import CourierManifest

@Suite struct RegistryServiceTests {
    @Test func defaultsAndClaimsArePersistedUnderTheStateFolder() async throws {
        let manifests = TemporaryFolder(), state = TemporaryFolder()
        manifests.write("a.plist", appPlist("com.acme.a", schemes: ["x"]))
        manifests.write("b.plist", appPlist("com.acme.b", schemes: ["x"]))
        let config = RegistryService.Configuration(folders: [manifests.path], stateFolder: state.path)
        let service = RegistryService(configuration: config)
        #expect(service.handlers(forScheme: "x").bundleIdentifiers == ["com.acme.a", "com.acme.b"])
        try service.setDefault("com.acme.b", forScheme: "x")
        #expect(FileManager.default.fileExists(atPath: state.path + "/defaults.json"))
        #expect(FileManager.default.fileExists(atPath: state.path + "/claims.json"))
        let again = RegistryService(configuration: config)
        #expect(again.handlers(forScheme: "x").bundleIdentifiers == ["com.acme.b", "com.acme.a"])
    }

    @Test func aManifestRegisteredFromOutsideTheFoldersIsRegisteredAgainByTheNextService() throws {
        let manifests = TemporaryFolder(), elsewhere = TemporaryFolder(), state = TemporaryFolder()
        elsewhere.write("Info.plist", appPlist("com.acme.outside", schemes: ["out"]))
        let config = RegistryService.Configuration(folders: [manifests.path], stateFolder: state.path)
        try RegistryService(configuration: config).register(manifestAt: elsewhere.path + "/Info.plist")
        let restarted = RegistryService(configuration: config)
        #expect(restarted.handlers(forScheme: "out").bundleIdentifiers == ["com.acme.outside"])
        #expect(restarted.application(bundleIdentifier: "com.acme.outside")?.path == elsewhere.path + "/Info.plist")
        // Unregistered, it stays unregistered across the next start.
        try restarted.unregister(bundleIdentifier: "com.acme.outside")
        #expect(RegistryService(configuration: config).application(bundleIdentifier: "com.acme.outside") == nil)
    }

    @Test func aRegistrationThatCannotBeSavedIsRefusedAndChangesNothing() throws {
        let manifests = TemporaryFolder(), elsewhere = TemporaryFolder(), parent = TemporaryFolder()
        elsewhere.write("Info.plist", appPlist("com.acme.outside", schemes: ["out"]))
        // The state folder's place is taken by a file: nothing can be saved there, even by root.
        parent.write("state", "not a folder")
        let service = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: parent.path + "/state"))
        let error = #expect(throws: RegistryError.self) { try service.register(manifestAt: elsewhere.path + "/Info.plist") }
        #expect(error?.code == .stateNotWritable)
        #expect(error?.message.contains("would not survive a restart") == true, "\(error?.message ?? "")")
        #expect(service.application(bundleIdentifier: "com.acme.outside") == nil)
        // A manifest in the folders needs no saved registration.
        manifests.write("in.plist", appPlist("com.acme.inside", schemes: ["in"]))
        try service.register(manifestAt: manifests.path + "/in.plist")
        #expect(service.handlers(forScheme: "in").bundleIdentifiers == ["com.acme.inside"])
    }

    /// Collects the changes a service announces.
    actor ChangeLog {
        var changes: [RegistryChange] = []
        func append(_ change: RegistryChange) { changes.append(change) }

        /// Waits (bounded: a missed event fails the test instead of hanging it) for a change that
        /// satisfies `predicate`.
        func wait(for predicate: (RegistryChange) -> Bool) async -> RegistryChange? {
            for _ in 0..<500 {
                if let hit = changes.first(where: predicate) { return hit }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    @Test func changesOnDiskAreReloadedAndAnnounced() async throws {
        let manifests = TemporaryFolder()
        let service = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: nil))
        let changes = service.changes()
        let log = ChangeLog()
        let collector = Task { for await change in changes { await log.append(change) } }
        defer { collector.cancel() }
        try service.startWatching(debounceMilliseconds: 50)
        #expect(service.watchedFolders == [manifests.path])
        manifests.write("new.plist", appPlist("com.acme.new", schemes: ["fresh"]))
        let change = try #require(await log.wait { !$0.added.isEmpty })
        #expect(change.added == ["com.acme.new"])
        #expect(change.schemes == ["fresh"])
        #expect(service.handlers(forScheme: "fresh").bundleIdentifiers == ["com.acme.new"])
        #expect(service.snapshot.handlers(forScheme: "fresh").bundleIdentifiers == ["com.acme.new"])
        try FileManager.default.removeItem(atPath: manifests.url("new.plist"))
        let removal = try #require(await log.wait { !$0.removed.isEmpty })
        #expect(removal.removed == ["com.acme.new"])
        service.stopWatching()
    }

    @Test func registeringAFileOutsideTheFoldersSurvivesAReload() async throws {
        let manifests = TemporaryFolder(), elsewhere = TemporaryFolder()
        let path = elsewhere.write("app.plist", appPlist("com.acme.runtime", schemes: ["rt"]))
        let service = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: nil))
        let change = try service.register(manifestAt: path)
        #expect(change.added == ["com.acme.runtime"])
        service.reload()
        #expect(service.application(bundleIdentifier: "com.acme.runtime")?.path == path)
        try service.unregister(bundleIdentifier: "com.acme.runtime")
        service.reload()
        #expect(service.application(bundleIdentifier: "com.acme.runtime") == nil)
    }

    @Test func registeringABrokenFileThrowsItsDiagnostics() async throws {
        let folder = TemporaryFolder()
        let path = folder.write("bad.plist", appPlist("not-reverse-dns"))
        let service = RegistryService(configuration: .init(folders: [], stateFolder: nil))
        do {
            try service.register(manifestAt: path)
            Issue.record("a broken manifest was registered")
        } catch {
            #expect(error.code == .invalidManifest)
            #expect(error.diagnostics.map(\.code) == [.invalidBundleIdentifier])
        }
    }
}

/// The broker side of live defaults: `reloadDefaults` re-reads `defaults.json` written by someone
/// else (the CLI), applies it at once and announces the apps whose routing changed.
@Suite struct LiveDefaultsServiceTests {
    @Test func reloadedDefaultsApplyAtOnceAndNameTheAppsTheyMove() throws {
        let manifests = TemporaryFolder(), state = TemporaryFolder()
        manifests.write("a.plist", appPlist("com.acme.a", schemes: ["x"]))
        manifests.write("b.plist", appPlist("com.acme.b", schemes: ["x"]))
        let broker = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: state.path))
        let cli = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: state.path))
        try cli.setDefault("com.acme.b", forScheme: "x")
        let revision = broker.revision
        #expect(broker.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.acme.a")   // not yet re-read

        let change = broker.reloadDefaults()
        #expect(change.schemes == ["x"])
        #expect(change.updated == ["com.acme.a", "com.acme.b"])
        #expect(broker.revision != revision)   // route caches keyed by revision miss
        #expect(broker.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.acme.b")
        #expect(broker.reloadDefaults().isEmpty)   // nothing new

        try cli.clearDefault(for: "x")
        #expect(broker.reloadDefaults().updated == ["com.acme.a", "com.acme.b"])
        #expect(broker.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.acme.a")
    }

    @Test func aDamagedDefaultsFileKeepsTheDefaultsAndIsReported() throws {
        let manifests = TemporaryFolder(), state = TemporaryFolder()
        manifests.write("a.plist", appPlist("com.acme.a", schemes: ["x"]))
        manifests.write("b.plist", appPlist("com.acme.b", schemes: ["x"]))
        let broker = RegistryService(configuration: .init(folders: [manifests.path], stateFolder: state.path))
        try broker.setDefault("com.acme.b", forScheme: "x")
        state.write("defaults.json", "{ not json")
        #expect(broker.reloadDefaults().isEmpty)
        #expect(broker.handlers(forScheme: "x").chosen?.bundleIdentifier == "com.acme.b")
        #expect(broker.diagnostics.contains { $0.file.hasSuffix("defaults.json") && $0.message.contains("damaged") })
    }
}
