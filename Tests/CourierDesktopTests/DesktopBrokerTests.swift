import BusTestSupport
import Foundation
import Testing

/// The whole path, on a private session bus: the broker is D-Bus-activated from the installed
/// service file, writes the desktop entries at start-up, and `xdg-open` / `gio open` reach a
/// Courier app through `courier open --desktop-entry` and the broker, byte for byte.
@Suite(.serialized, .enabled(if: InstallScriptTests.built, "courier and courierd are not built beside the tests"))
struct DesktopBrokerTests {
    /// Valid RFC 3986 URLs (the broker refuses the others) that still carry what shells and
    /// launchers mangle.
    static let urls = [
        "todolist://www.acme.com?Quarterly%20Report#200806231300",
        "todolist://x/$(id)?a=1;b=2&c='3'&d=$HOME#!frag",
        "todolist://x?%25u%20%25U%20%25f%20%25%25%22q%22%60id%60",
        "todolist:-rf",
        "todolist://-x/--help?*=(1)+,",
    ]

    struct Setup {
        let home: TemporaryDesktopHome
        let bus: PrivateSessionBus
        let environment: [String: String]
        let record: String
    }

    func start() throws -> Setup {
        let home = try TemporaryDesktopHome()
        let bin = InstallScriptTests.binDirectory
        let record = home.root + "/opened"
        let script = PythonPeers.path("recorder_app.py")
        let manifests = home.directories.dataHome + "/courier/manifests"
        try FileManager.default.createDirectory(atPath: manifests, withIntermediateDirectories: true)
        let plist: [String: Any] = [
            "CFBundleIdentifier": "com.acme.recorder",
            "CFBundleName": "Recorder",
            "CFBundleURLTypes": [["CFBundleURLName": "com.acme.recorder", "CFBundleURLSchemes": ["todolist"]]],
            "CourierLaunchArguments": ["/usr/bin/python3", script, record],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: manifests + "/com.acme.recorder.plist"))

        var environment = home.environment(display: true)
        environment["COURIER_LOG_LEVEL"] = "warning"
        let bus = try PrivateSessionBus(folder: home.root, environment: environment)
        // The service file scripts/install installs, with @bindir@ pointing at this build.
        let template = try String(contentsOfFile: InstallScriptTests.repository + "/dist/org.courier.Broker.service", encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: bin)
            .write(toFile: bus.servicesFolder + "/org.courier.Broker.service", atomically: true, encoding: .utf8)
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        return Setup(home: home, bus: bus, environment: environment, record: record)
    }

    /// Waits (bounded) until `path` exists.
    func waitFor(_ path: String, seconds: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func recorded(_ path: String, count: Int, seconds: Double = 20) async -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var urls: [String] = []
        while Date() < deadline {
            let data = FileManager.default.contents(atPath: path) ?? Data()
            urls = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if urls.count >= count { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return urls
    }

    @Test func busActivatedBrokerWritesEntriesAndDesktopToolsReachTheAppByteExact() async throws {
        let setup = try start()
        let entry = setup.home.directories.applications + "/courier-com.acme.recorder.desktop"
        // Start the broker by bus activation, as the desktop would.
        let status = try await run("/usr/bin/dbus-send", [
            "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.StartServiceByName", "string:org.courier.Broker", "uint32:0",
        ], environment: setup.environment)
        #expect(status.status == 0)
        #expect(await waitFor(entry), "the broker wrote no desktop entry at start-up")
        #expect(await waitFor(setup.home.directories.mimeAppsList))

        let courier = InstallScriptTests.binDirectory + "/courier"
        let report = try await run(courier, ["status"], environment: setup.environment)
        #expect(report.output.contains("bus-activation"), "courier status said: \(report.output)")

        let query = try await run("/usr/bin/xdg-mime", ["query", "default", "x-scheme-handler/todolist"], environment: setup.environment)
        #expect(query.output == "courier-com.acme.recorder.desktop\n")

        var expected: [String] = []
        for url in Self.urls {
            let xdg = try await run("/usr/bin/xdg-open", [url], environment: setup.environment)
            #expect(xdg.status == 0, "xdg-open \(url)")
            expected.append(url)
            #expect(await recorded(setup.record, count: expected.count) == expected)
            let gio = try await run("/usr/bin/gio", ["open", url], environment: setup.environment)
            #expect(gio.status == 0, "gio open \(url)")
            expected.append(url)
            #expect(await recorded(setup.record, count: expected.count) == expected)
        }
    }

    func startBroker(_ setup: Setup) async throws {
        let started = try await run("/usr/bin/dbus-send", [
            "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.StartServiceByName", "string:org.courier.Broker", "uint32:0",
        ], environment: setup.environment)
        #expect(started.status == 0)
        #expect(await waitFor(setup.home.directories.applications + "/courier-com.acme.recorder.desktop"))
        // The entry is written before mimeapps.list, in the same batch.
        #expect(await waitFor(setup.home.directories.mimeAppsList))
    }

    /// Waits (bounded) until `xdg-mime` names `desktopFile` as the default for `scheme`: the
    /// background writer puts the entry in place before it edits mimeapps.list.
    func waitForDefault(_ scheme: String, _ desktopFile: String, environment: [String: String]) async throws -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let query = try await run("/usr/bin/xdg-mime", ["query", "default", "x-scheme-handler/\(scheme)"], environment: environment)
            if query.output == desktopFile + "\n" { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func waitForGone(_ path: String, seconds: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !FileManager.default.fileExists(atPath: path) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func registerAndUnregisterThroughTheBrokerKeepTheEntriesInStep() async throws {
        let setup = try start()
        try await startBroker(setup)
        let notes = setup.home.root + "/com.acme.notes.plist"
        let plist: [String: Any] = [
            "CFBundleIdentifier": "com.acme.notes", "CFBundleName": "Notes",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["notes"]]],
            "CourierLaunchArguments": ["/bin/true"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: notes))
        let mimeApps = setup.home.directories.mimeAppsList
        let before = try #require(setup.home.read(mimeApps))
        let courier = InstallScriptTests.binDirectory + "/courier"
        let entry = setup.home.directories.applications + "/courier-com.acme.notes.desktop"

        #expect(try await run(courier, ["register", notes], environment: setup.environment).status == 0)
        #expect(await waitFor(entry))
        #expect(try await waitForDefault("notes", "courier-com.acme.notes.desktop", environment: setup.environment))

        #expect(try await run(courier, ["unregister", "com.acme.notes"], environment: setup.environment).status == 0)
        #expect(await waitForGone(entry))
        // Bounded wait for the background writer to finish mimeapps.list as well.
        let deadline = Date().addingTimeInterval(10)
        while setup.home.read(mimeApps) != before, Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(setup.home.read(mimeApps) == before)
    }

    /// Hot reload: a manifest saved into a watched folder (no `courier register`) gets its entry,
    /// and deleting the file removes it.
    @Test func manifestsAddedOrRemovedOnDiskUpdateTheEntries() async throws {
        let setup = try start()
        try await startBroker(setup)
        let manifest = setup.home.directories.dataHome + "/courier/manifests/com.acme.later.plist"
        let plist: [String: Any] = [
            "CFBundleIdentifier": "com.acme.later", "CFBundleName": "Later",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["later"]]],
            "CourierLaunchArguments": ["/bin/true"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: manifest))
        let entry = setup.home.directories.applications + "/courier-com.acme.later.desktop"
        #expect(await waitFor(entry), "a manifest saved on disk did not produce a desktop entry")
        try FileManager.default.removeItem(atPath: manifest)
        #expect(await waitForGone(entry), "a manifest removed from disk left its desktop entry")
    }

    /// A desktop application (not a Courier app) that records its argv, the desktop's default for
    /// `schemes`; returns the file its argv is recorded in.
    func installDesktopHandler(_ setup: Setup, named name: String, arguments: String, schemes: [String]) throws -> String {
        let output = setup.home.root + "/\(name)-argv"
        let program = try setup.home.makeRecorder(named: name, output: output)
        let types = schemes.map { "x-scheme-handler/\($0);" }.joined()
        try setup.home.write("[Desktop Entry]\nType=Application\nName=\(name)\nExec=\(program) \(arguments)\nMimeType=\(types)\n",
            to: setup.home.directories.applications + "/\(name).desktop")
        let defaults = schemes.map { "x-scheme-handler/\($0)=\(name).desktop\n" }.joined()
        try setup.home.write("[Default Applications]\n" + defaults, to: setup.home.directories.mimeAppsList)
        return output
    }

    @Test func urlsNoCourierAppOwnsGoToTheDesktopUnlessTurnedOff() async throws {
        let setup = try start()
        let output = try installDesktopHandler(setup, named: "mail", arguments: "--compose %u", schemes: ["mailto"])
        try await startBroker(setup)
        let courier = InstallScriptTests.binDirectory + "/courier"
        let url = "mailto:someone@example.com?subject=$(id)&body=it's%20%60here%60"

        let opened = try await run(courier, ["open", url], environment: setup.environment)
        #expect(opened.status == 0)
        #expect(await setup.home.recordedArguments(at: output) == ["--compose", url])

        let refused = try await run(courier, ["open", "--no-fallback", url], environment: setup.environment)
        #expect(refused.status == 3, "NoHandler")
        let fromDesktop = try await run(courier, ["open", "--desktop-entry", "--", url], environment: setup.environment)
        #expect(fromDesktop.status == 3, "a desktop entry never hands back to the desktop")
        #expect(await setup.home.recordedArguments(at: output, waitingUpTo: 0.5) == nil)
    }

    /// IRIs from every route — `courier open` (the static front), `xdg-open`, `gio open` and
    /// `Broker1.OpenURL` from gdbus — reach the app as the URI; a URL no Courier app owns reaches
    /// the desktop's browser as the URI, only when a browser reads the same host, port and path in
    /// it, and `--dry-run` shows that hand-off.
    @Test func irisReachTheAppAsURIsAndTheBrowserOnlyWhatItReadsAlike() async throws {
        let setup = try start()
        let output = try installDesktopHandler(setup, named: "browser", arguments: "%u", schemes: ["https", "http"])
        try await startBroker(setup)
        let courier = InstallScriptTests.binDirectory + "/courier"
        let iri = "todolist://www.acme.com?Café"
        let uri = "todolist://www.acme.com?Caf%C3%A9"

        let opened = try await BackgroundProcess.run(courier, ["open", iri], environment: setup.environment)
        #expect(opened.status == 0, "\(opened.errors)")
        #expect(await recorded(setup.record, count: 1) == [uri])
        #expect(try await run("/usr/bin/xdg-open", [iri], environment: setup.environment).status == 0)
        #expect(try await run("/usr/bin/gio", ["open", iri], environment: setup.environment).status == 0)
        let gdbus = try await BackgroundProcess.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "org.courier.Broker", "--object-path", "/org/courier/Broker",
            "--method", "org.courier.Broker1.OpenURL", iri, "{}",
        ], environment: setup.environment)
        #expect(gdbus.status == 0, "\(gdbus.errors)")
        #expect(await recorded(setup.record, count: 4) == [uri, uri, uri, uri])

        // What no mapping mends: refused with the offset in the text as given, and the URL it would accept.
        let space = try await BackgroundProcess.run(courier, ["open", "todolist://www.acme.com?Café Report"], environment: setup.environment)
        #expect(space.status == 2, "InvalidURL")
        #expect(space.errors.contains("offset 29"), "\(space.errors)")
        #expect(space.errors.contains("the URL it would accept: todolist://www.acme.com?Caf%C3%A9%20Report"), "\(space.errors)")
        let bidi = try await BackgroundProcess.run(courier, ["open", "todolist://x?a\u{202E}b"], environment: setup.environment)
        #expect(bidi.status == 2)
        #expect(bidi.errors.contains("bidirectional formatting"), "\(bidi.errors)")

        // The desktop: the URI of an IRI; nothing that a browser reads otherwise.
        let dryRun = try await BackgroundProcess.run(courier, ["open", "--dry-run", "https://example.org/a/../b"], environment: setup.environment)
        #expect(dryRun.status == 0, "\(dryRun.errors)")
        #expect(dryRun.output.contains("would go to the desktop's handler") && dryRun.output.contains("as https://example.org/b"), "\(dryRun.output)")
        #expect(await setup.home.recordedArguments(at: output, waitingUpTo: 0.5) == nil, "a dry run hands nothing on")
        for (url, code) in [("http://0x7f.1/", "127.0.0.1"), ("http:evil.com@good.com", "no host for Courier"), ("http://example.com/%2e%2e/x", "dot segment")] {
            let refused = try await BackgroundProcess.run(courier, ["open", url], environment: setup.environment)
            #expect(refused.status == 2, "\(url): \(refused.errors)")
            #expect(refused.errors.contains(code), "\(url): \(refused.errors)")
        }
        #expect(await setup.home.recordedArguments(at: output, waitingUpTo: 0.5) == nil, "nothing a browser reads otherwise reached it")
        let international = try await BackgroundProcess.run(courier, ["open", "https://例え.jp/パス"], environment: setup.environment)
        #expect(international.status == 0, "\(international.errors)")
        #expect(await setup.home.recordedArguments(at: output) == ["https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9"])
    }

    /// A manifest may name an app that only implements org.freedesktop.Application: the broker
    /// has the bus activate it and calls Open(uris, platform_data) with the activation token.
    @Test func foreignGApplicationIsActivatedByTheBusAndOpenedThroughFreedesktopApplication() async throws {
        let setup = try start()
        let record = setup.home.root + "/viewer.jsonl"
        let manifests = setup.home.directories.dataHome + "/courier/manifests"
        let plist: [String: Any] = [
            "CFBundleIdentifier": "org.example.ForeignViewer", "CFBundleName": "Foreign Viewer",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["viewer"]]],
            "CourierDBusActivatable": true,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: manifests + "/org.example.ForeignViewer.plist"))
        // The viewer's own D-Bus service file, as its package would install it; the bus passes its
        // environment (VIEWER_RECORD) to what it activates.
        var environment = setup.environment
        environment["VIEWER_RECORD"] = record
        let bus = try PrivateSessionBus(folder: setup.home.root + "/bus2", environment: environment)
        let template = try String(contentsOfFile: InstallScriptTests.repository + "/dist/org.courier.Broker.service", encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: InstallScriptTests.binDirectory)
            .write(toFile: bus.servicesFolder + "/org.courier.Broker.service", atomically: true, encoding: .utf8)
        try bus.installService(
            name: "org.example.ForeignViewer",
            exec: "\(PythonPeers.python) \(PythonPeers.path("foreign_viewer.py")) --gapplication-service")
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address

        let courier = InstallScriptTests.binDirectory + "/courier"
        let url = "viewer://photos/2008/q2?view=$(id)&mode='grid'"
        let opened = try await run(courier, ["open", "--activation-token", "token-42", url], environment: environment)
        #expect(opened.status == 0)
        let first = await readViewerRecord(record, count: 1)
        #expect(first.first?.uris == [url])
        #expect(first.first?.platformData["activation-token"] == "token-42")
        #expect(first.first?.platformData["desktop-startup-id"] == "token-42")

        // And from the desktop: the broker wrote the viewer's entry; xdg-open goes through courier.
        #expect(await waitFor(setup.home.directories.applications + "/courier-org.example.ForeignViewer.desktop"))
        #expect(try await waitForDefault("viewer", "courier-org.example.ForeignViewer.desktop", environment: environment))
        let second = "viewer://photos/2008/q3#-x"
        #expect(try await run("/usr/bin/xdg-open", [second], environment: environment).status == 0)
        #expect(await readViewerRecord(record, count: 2).last?.uris == [second])
    }

    func readViewerRecord(_ path: String, count: Int) async -> [(uris: [String], platformData: [String: String])] {
        let deadline = Date().addingTimeInterval(20)
        var entries: [(uris: [String], platformData: [String: String])] = []
        while Date() < deadline {
            let lines = (FileManager.default.contents(atPath: path) ?? Data()).split(separator: 0x0A)
            entries = lines.compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
                return (object["uris"] as? [String] ?? [], object["platform_data"] as? [String: String] ?? [:])
            }
            if entries.count >= count { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return entries
    }
}
