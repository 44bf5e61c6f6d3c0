import Foundation
import Testing
import CourierDesktop
import Synchronization

/// Registration against the real desktop tools, in a temporary XDG home.
@Suite(.serialized) struct DesktopIntegrationTests {
    static let todolist = try! DesktopApp(bundleIdentifier: "com.acme.todolist", name: "Todo List", schemes: ["todolist"])
    static let exec = try! DesktopExec(command: ["/usr/bin/courier", "open", "--desktop-entry"])

    static let userMimeApps = """
        [Default Applications]
        text/html=firefox.desktop
        x-scheme-handler/https=firefox.desktop
        x-scheme-handler/mailto=thunderbird.desktop;

        [Added Associations]
        text/html=firefox.desktop;
        image/png=gimp.desktop;eog.desktop;

        """

    func integration(_ home: TemporaryDesktopHome) -> DesktopIntegration {
        DesktopIntegration(layout: home.directories, exec: Self.exec, environment: home.environment())
    }

    @Test func writtenEntryPassesDesktopFileValidate() async throws {
        let home = try TemporaryDesktopHome()
        let hostile = try DesktopApp(
            bundleIdentifier: "com.acme.todo-list_2", name: " Tödo \"List\"; $HOME `x` \\ %u\n\tline",
            schemes: ["todolist", "todo+x", "web-todo.v2"])
        let exec = try DesktopExec(command: ["/opt/My Apps/cour$ier`x`", "open", "--desktop-entry", "100%"])
        let desktop = DesktopIntegration(layout: home.directories, exec: exec, environment: home.environment())
        try desktop.register(Self.todolist)
        try desktop.register(hostile)
        for id in [Self.todolist.bundleIdentifier, hostile.bundleIdentifier] {
            let result = try await run("/usr/bin/desktop-file-validate", [desktop.entryPath(for: id)], environment: home.environment())
            #expect(result.status == 0, "desktop-file-validate: \(result.output)")
            #expect(result.output.isEmpty, "desktop-file-validate warned: \(result.output)")
        }
    }

    @Test func xdgMimeAndGioNameOurEntryAsTheDefault() async throws {
        let home = try TemporaryDesktopHome()
        // GLib ignores an entry whose program does not exist: point it at a real one.
        let exec = try DesktopExec(command: [try home.makeRecorder(output: home.root + "/argv"), "open"])
        let desktop = DesktopIntegration(layout: home.directories, exec: exec, environment: home.environment())
        let report = try desktop.register(Self.todolist)
        #expect(report.mimeAppsListChanged)
        #expect(report.writtenEntries == [desktop.entryPath(for: "com.acme.todolist")])

        let xdgMime = try await run("/usr/bin/xdg-mime", ["query", "default", "x-scheme-handler/todolist"], environment: home.environment())
        #expect(xdgMime.output == "courier-com.acme.todolist.desktop\n")
        let gio = try await run("/usr/bin/gio", ["mime", "x-scheme-handler/todolist"], environment: home.environment())
        #expect(gio.output.contains("Default application for “x-scheme-handler/todolist”: courier-com.acme.todolist.desktop")
            || gio.output.contains("Default application for \"x-scheme-handler/todolist\": courier-com.acme.todolist.desktop"),
            "gio mime said: \(gio.output)")
    }

    @Test func otherEntriesOfMimeAppsListAreUntouchedAndUnregisterRestoresEveryByte() async throws {
        let home = try TemporaryDesktopHome()
        try home.write(Self.userMimeApps, to: home.directories.mimeAppsList)
        let desktop = integration(home)
        try desktop.register(Self.todolist)

        let edited = String(decoding: home.read(home.directories.mimeAppsList)!, as: UTF8.self)
        let removedOurLines = edited.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("courier-com.acme.todolist.desktop") }.joined(separator: "\n")
        #expect(removedOurLines == Self.userMimeApps)
        for type in ["text/html", "x-scheme-handler/https", "x-scheme-handler/mailto", "image/png"] {
            let result = try await run("/usr/bin/xdg-mime", ["query", "default", type], environment: home.environment())
            #expect(!result.output.contains("courier"), "\(type) now opens with \(result.output)")
        }

        let report = try desktop.unregister(bundleIdentifier: "com.acme.todolist")
        #expect(report.removedEntries == [desktop.entryPath(for: "com.acme.todolist")])
        #expect(home.read(home.directories.mimeAppsList) == Data(Self.userMimeApps.utf8))
        #expect(!FileManager.default.fileExists(atPath: desktop.entryPath(for: "com.acme.todolist")))
    }

    @Test func previousDefaultStaysAsFallbackAndComesBackAfterUnregister() async throws {
        let home = try TemporaryDesktopHome()
        let original = "[Default Applications]\nx-scheme-handler/todolist=other-todo.desktop\n"
        try home.write(original, to: home.directories.mimeAppsList)
        let desktop = integration(home)
        try desktop.register(Self.todolist)
        let edited = String(decoding: home.read(home.directories.mimeAppsList)!, as: UTF8.self)
        #expect(edited.hasPrefix("[Default Applications]\nx-scheme-handler/todolist=courier-com.acme.todolist.desktop;other-todo.desktop\n"))
        try desktop.unregister(bundleIdentifier: "com.acme.todolist")
        #expect(home.read(home.directories.mimeAppsList) == Data(original.utf8))
    }

    @Test func registeringIntoNoFileThenUnregisteringLeavesNoFile() async throws {
        let home = try TemporaryDesktopHome()
        let desktop = integration(home)
        try desktop.register(Self.todolist)
        #expect(FileManager.default.fileExists(atPath: home.directories.mimeAppsList))
        try desktop.unregister(bundleIdentifier: "com.acme.todolist")
        #expect(!FileManager.default.fileExists(atPath: home.directories.mimeAppsList))
        #expect(desktop.installedBundleIdentifiers().isEmpty)
    }

    @Test func reRegisteringWithFewerSchemesReleasesOnlyTheDroppedOnes() async throws {
        let home = try TemporaryDesktopHome()
        let desktop = integration(home)
        try desktop.register(DesktopApp(bundleIdentifier: "com.acme.todolist", name: "Todo", schemes: ["todolist", "todo"]))
        try desktop.register(Self.todolist)
        let list = MimeAppsList(bytes: Array(home.read(home.directories.mimeAppsList)!))!
        #expect(list.mimeTypes(listing: "courier-com.acme.todolist.desktop", in: .defaultApplications) == ["x-scheme-handler/todolist"])
        #expect(list.mimeTypes(listing: "courier-com.acme.todolist.desktop", in: .addedAssociations) == ["x-scheme-handler/todolist"])
        let again = try desktop.register(Self.todolist)
        #expect(!again.changedAnything)
    }

    @Test func synchronizeRemovesStaleCourierEntriesButNeverForeignOnes() async throws {
        let home = try TemporaryDesktopHome()
        let desktop = integration(home)
        let mail = try DesktopApp(bundleIdentifier: "org.example.mail", name: "Mail", schemes: ["x-mail"])
        try desktop.register(mail)
        let foreign = home.directories.applications + "/courier-org.example.foreign.desktop"
        try home.write("[Desktop Entry]\nType=Application\nName=Foreign\nExec=/bin/true\n", to: foreign)

        let report = try desktop.synchronize([Self.todolist])
        #expect(report.removedEntries == [desktop.entryPath(for: "org.example.mail")])
        #expect(desktop.installedBundleIdentifiers() == ["com.acme.todolist"])
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(throws: DesktopIntegrationError.foreignDesktopEntry(path: foreign)) {
            try desktop.unregister(bundleIdentifier: "org.example.foreign")
        }
        let list = MimeAppsList(bytes: Array(home.read(home.directories.mimeAppsList)!))!
        #expect(list.desktopIDs(for: "x-scheme-handler/x-mail", in: .defaultApplications).isEmpty)
    }

    @Test func desktopDatabaseIsRefreshedWhenTheToolExists() async throws {
        let home = try TemporaryDesktopHome()
        let report = try integration(home).register(Self.todolist)
        #expect(report.databaseRefresh == .exited(0))
        let cache = String(decoding: home.read(home.directories.applications + "/mimeinfo.cache") ?? Data(), as: UTF8.self)
        #expect(cache.contains("x-scheme-handler/todolist=courier-com.acme.todolist.desktop;"))

        let withoutTool = DesktopIntegration(
            layout: home.directories, exec: Self.exec, environment: home.environment(path: home.root + "/empty"))
        let second = try withoutTool.unregister(bundleIdentifier: "com.acme.todolist")
        #expect(second.databaseRefresh == nil)
    }

    @Test func nothingIsWrittenOutsideTheTwoXDGFolders() async throws {
        let home = try TemporaryDesktopHome()
        try integration(home).register(Self.todolist)
        let everything = FileManager.default.enumerator(atPath: home.root)!.compactMap { $0 as? String }
        let outside = everything.filter {
            !$0.hasPrefix("data") && !$0.hasPrefix("config") && !["bin", "empty"].contains($0)
        }
        #expect(outside.isEmpty)
        #expect(Set(everything.filter { $0.hasPrefix("data/") }) == [
            "data/applications", "data/applications/courier-com.acme.todolist.desktop", "data/applications/mimeinfo.cache",
        ])
    }
}

@Suite struct DesktopEntrySyncTests {
    @Test func updatesAreWrittenInTheBackgroundAndTheLatestWins() async throws {
        let home = try TemporaryDesktopHome()
        let integration = DesktopIntegration(
            layout: home.directories, exec: DesktopIntegrationTests.exec, environment: home.environment())
        let outcomes = OutcomeLog()
        let sync = DesktopEntrySync(integration: integration) { outcomes.append($0) }
        let mail = try DesktopApp(bundleIdentifier: "org.example.mail", name: "Mail", schemes: ["x-mail"])
        sync.update([mail])
        sync.update([DesktopIntegrationTests.todolist, mail])
        sync.update([DesktopIntegrationTests.todolist])
        await sync.flush()
        #expect(integration.installedBundleIdentifiers() == ["com.acme.todolist"])
        #expect(!outcomes.values.isEmpty && outcomes.values.allSatisfy { (try? $0.get()) != nil })
        sync.update([])
        await sync.flush()
        #expect(integration.installedBundleIdentifiers().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: home.directories.mimeAppsList))
    }
}

final class OutcomeLog: Sendable {
    private let storage = Mutex<[DesktopEntrySync.Outcome]>([])
    func append(_ outcome: DesktopEntrySync.Outcome) { storage.withLock { $0.append(outcome) } }
    var values: [DesktopEntrySync.Outcome] { storage.withLock { $0 } }
}
