import BusTestSupport
import DBus
import Foundation

/// A desktop portal on a test's private bus: Debian's `xdg-desktop-portal` (the frontend every
/// desktop runs, which apps call) with a file-chooser backend of the test's own,
/// `Tests/Fixtures/portal-file-chooser.py` (python-dbus, serving
/// `org.freedesktop.impl.portal.FileChooser` as xdg-desktop-portal-gtk does, answering as the test
/// says instead of showing a dialog). The frontend finds the backend as on a desktop: a `.portal`
/// file naming its bus name and interface with `UseIn=` the desktop in `XDG_CURRENT_DESKTOP`
/// (xdg-desktop-portal 1.16 reads them from `XDG_DESKTOP_PORTAL_DIR`), and `portals.conf` in
/// `XDG_CONFIG_HOME/xdg-desktop-portal` for releases from 1.17 on, which choose by that file.
final class TestDesktopPortal: Sendable {
    static let frontendPath = "/usr/libexec/xdg-desktop-portal"
    static let isInstalled = FileManager.default.isExecutableFile(atPath: frontendPath)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let desktop = "couriertest"
    static let backendName = "org.freedesktop.impl.portal.desktop.couriertest"
    static let backendScript = fixture("portal-file-chooser.py")

    /// The path of `name` in Tests/Fixtures.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    let backend: BackgroundProcess
    /// The frontend this started (nil when the bus starts it: `activationService`).
    let frontend: BackgroundProcess?
    let record: URL
    let root: URL

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes the `.portal` file and `portals.conf` into `root`; returns what the frontend's
    /// environment must add to find them.
    static func configure(in root: URL) throws -> [String: String] {
        let portals = root.appendingPathComponent("portals", isDirectory: true)
        let config = root.appendingPathComponent("config/xdg-desktop-portal", isDirectory: true)
        for made in [portals, config] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        try Data("""
            [portal]
            DBusName=\(backendName)
            Interfaces=org.freedesktop.impl.portal.FileChooser
            UseIn=\(desktop)

            """.utf8).write(to: portals.appendingPathComponent("\(desktop).portal"))
        try Data("[preferred]\ndefault=\(desktop)\n".utf8).write(to: config.appendingPathComponent("portals.conf"))
        return ["XDG_CURRENT_DESKTOP": desktop, "XDG_DESKTOP_PORTAL_DIR": portals.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path]
    }

    /// A D-Bus service file that has the bus start the frontend on `org.freedesktop.portal.Desktop`,
    /// as Debian's does, with the configuration `configure` wrote into `root`, written in `services`.
    static func activationService(in services: URL, root: URL) throws {
        let settings = try configure(in: root).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try Data("""
            [D-BUS Service]
            Name=org.freedesktop.portal.Desktop
            Exec=/usr/bin/env \(settings) \(frontendPath)

            """.utf8).write(to: services.appendingPathComponent("org.freedesktop.portal.Desktop.service"))
    }

    /// Starts the backend (answering `answer`: a folder, `cancel`, `other`, `hang` or `uri:URI`,
    /// after `delay` seconds), then — unless `startFrontend` is false, for a bus that starts it —
    /// the frontend, on the bus `connection` is on (which `environment` names); returns once the
    /// frontend owns `org.freedesktop.portal.Desktop`.
    init(environment: [String: String], folder: URL, connection: DBusConnection, answer: String, delay: Double = 0.2,
         startFrontend: Bool = true, root: URL? = nil) async throws {
        let root = root ?? folder.appendingPathComponent("portal-\(UUID().uuidString.prefix(8))", isDirectory: true)
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        record = root.appendingPathComponent("calls.jsonl")
        backend = try BackgroundProcess("/usr/bin/python3", [Self.backendScript, Self.backendName, record.path, answer, String(delay)],
                                        environment: environment, outputIn: root, name: "portal-backend")
        for _ in 0..<1000 where !backend.output.contains("ready") && backend.exitStatus == nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard backend.output.contains("ready") else {
            backend.signal(SIGTERM)
            throw StartFailure(description: "the portal backend did not start: \(backend.errors)")
        }
        guard startFrontend else {
            frontend = nil
            return
        }
        let frontend = try BackgroundProcess(Self.frontendPath, ["--verbose"], environment: environment.merging(try Self.configure(in: root)) { $1 },
                                             outputIn: root, name: "xdg-desktop-portal")
        self.frontend = frontend
        for _ in 0..<1000 where frontend.exitStatus == nil {
            if (try? await connection.nameOwner(of: "org.freedesktop.portal.Desktop")) ?? nil != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        throw StartFailure(description: "xdg-desktop-portal did not take org.freedesktop.portal.Desktop: \(frontend.errors)")
    }

    /// The portal on the bus of a share test's broker.
    static func start(on setup: OpenDocumentsTests.Setup, answer: String, delay: Double = 0.2) async throws -> TestDesktopPortal {
        try await TestDesktopPortal(environment: setup.environment, folder: setup.files, connection: setup.client.connection, answer: answer, delay: delay)
    }

    /// Every call the backend had, in order.
    var calls: [[String: Any]] {
        let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// What the frontend logged, for a failure's message.
    var log: String { (frontend?.errors ?? "") + (frontend?.output ?? "") }

    func stop() {
        frontend?.signal(SIGTERM)
        backend.signal(SIGTERM)
    }

    /// Stops both and waits for them to exit, so another portal can take the names.
    func stopped() async {
        stop()
        for process in [frontend, backend].compactMap({ $0 }) where await process.wait(timeout: .seconds(20)) == nil { process.kill() }
    }
}
