import CourierDesktop
import CourierNames
import Foundation
import Testing

/// The desktop's own applications, read and written as the real tools do: `DesktopApplications`
/// lists what `gio mime` lists, and `DesktopIntegration.makeDefault` writes what `xdg-mime default`
/// writes, checked by running both tools on the same files.
@Suite struct DesktopApplicationsTests {
    static func entry(_ name: String, types: [String], extra: String = "") -> String {
        "[Desktop Entry]\nType=Application\nName=\(name)\nExec=/bin/true %u\nMimeType=\(types.map { $0 + ";" }.joined())\n\(extra)"
    }

    /// `gio mime TYPE`'s default and its registered applications.
    static func gioMime(_ type: String, _ home: TemporaryDesktopHome) async throws -> (default: String?, registered: Set<String>) {
        let output = try await run("/usr/bin/gio", ["mime", type], environment: home.environment()).output
        var registered = Set<String>()
        var defaultID: String?
        var inRegistered = false
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Default application") { defaultID = line.split(separator: " ").last.map(String.init) }
            if !line.hasPrefix("\t") { inRegistered = line.hasPrefix("Registered applications"); continue }
            if inRegistered { registered.insert(line.trimmingCharacters(in: .whitespaces)) }
        }
        return (defaultID, registered)
    }

    @Test func handlersAreTheApplicationsGioMimeLists() async throws {
        let home = try TemporaryDesktopHome()
        let applications = home.directories.applications
        let type = "text/plain"
        try home.write(Self.entry("Fox", types: [type, "x-scheme-handler/todolist"]), to: applications + "/fox.desktop")
        try home.write(Self.entry("Okular", types: [type]), to: applications + "/kde/okular.desktop")
        try home.write(Self.entry("Gone", types: [type], extra: "Hidden=true\n"), to: applications + "/gone.desktop")
        try home.write(Self.entry("Html", types: ["text/html"]), to: applications + "/html.desktop")
        try home.write("[Desktop Entry]\nType=Link\nName=L\nURL=https://example.com\nMimeType=text/plain;\n", to: applications + "/link.desktop")
        try home.write(Self.entry("Removed", types: [type]), to: applications + "/removed.desktop")
        try home.write("[Default Applications]\ntext/plain=kde-okular.desktop\n\n[Added Associations]\ntext/plain=html.desktop;\n\n[Removed Associations]\ntext/plain=removed.desktop;\n",
                       to: home.directories.mimeAppsList)
        try await run("/usr/bin/update-desktop-database", ["-q", applications], environment: home.environment())

        let desktop = DesktopApplications(environment: home.environment())
        let handlers = desktop.handlers(for: type)
        #expect(handlers.map(\.entry.id) == ["kde-okular.desktop", "html.desktop", "fox.desktop"])
        #expect(handlers.map(\.isDefault) == [true, false, false])
        #expect(desktop.entry(id: "kde-okular.desktop")?.path == applications + "/kde/okular.desktop")
        #expect(desktop.entry(id: "gone.desktop") == nil, "Hidden=true deletes an entry")
        #expect(desktop.entry(id: "link.desktop") == nil, "only applications handle types")
        #expect(desktop.entry(id: "../fox.desktop") == nil && desktop.entry(id: "nothere.desktop") == nil)

        let gio = try await Self.gioMime(type, home)
        #expect(gio.default == desktop.defaultEntry(for: type)?.id)
        #expect(gio.registered == Set(handlers.map(\.entry.id)), "gio mime lists \(gio.registered.sorted())")

        // A removed association does not undo a default, for gio as here.
        try home.write("[Default Applications]\ntext/plain=removed.desktop\n\n[Removed Associations]\ntext/plain=removed.desktop;fox.desktop;\n",
                       to: home.directories.mimeAppsList)
        let after = desktop.handlers(for: type)
        #expect(after.map(\.entry.id) == ["removed.desktop", "kde-okular.desktop"])
        let gioAfter = try await Self.gioMime(type, home)
        #expect(gioAfter.default == "removed.desktop" && gioAfter.registered.union(["removed.desktop"]) == Set(after.map(\.entry.id)), "\(gioAfter)")
    }

    /// The same change by `xdg-mime default` and by Courier, from several starting files: both
    /// give the same lines, and `xdg-mime query default` and `gio mime` read the same default.
    @Test func makingADefaultWritesWhatXdgMimeDefaultWrites() async throws {
        let key = "x-scheme-handler/todolist"
        let starts: [String?] = [
            nil,
            "",
            "# mine\n[Default Applications]\ntext/html=web.desktop\n\(key)=old.desktop;other.desktop;\n\n[Added Associations]\n\(key)=old.desktop;\n",
            "[Added Associations]\ntext/html=web.desktop;\n",
            "[Default Applications]\ntext/html=web.desktop\n[Removed Associations]\ntext/plain=x.desktop;\n",
        ]
        for start in starts {
            let theirs = try TemporaryDesktopHome()
            let ours = try TemporaryDesktopHome()
            for home in [theirs, ours] {
                try home.write(Self.entry("Fox", types: [key]), to: home.directories.applications + "/fox.desktop")
                try await run("/usr/bin/update-desktop-database", ["-q", home.directories.applications], environment: home.environment())
                if let start { try home.write(start, to: home.directories.mimeAppsList) }
            }
            let xdg = try await run("/usr/bin/xdg-mime", ["default", "fox.desktop", key], environment: theirs.environment())
            #expect(xdg.status == 0)
            try DesktopIntegration.makeDefault("fox.desktop", for: [key], layout: ours.directories)

            func lines(_ home: TemporaryDesktopHome) -> [String] {
                String(decoding: home.read(home.directories.mimeAppsList) ?? Data(), as: UTF8.self)
                    .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            }
            #expect(lines(ours) == lines(theirs), "from \(String(describing: start))")
            for home in [theirs, ours] {
                let query = try await run("/usr/bin/xdg-mime", ["query", "default", key], environment: home.environment())
                #expect(query.output == "fox.desktop\n")
                #expect(try await Self.gioMime(key, home).default == "fox.desktop")
            }
        }
    }
}
