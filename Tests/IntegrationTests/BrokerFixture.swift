import BusTestSupport
import Courier
import CourierBroker
import CourierInbox
import CourierManifest
import CourierNames
import DBus
import Foundation
import Logging
import Synchronization
import CourierTools

/// One private dbus-daemon, one in-process broker on it (the real `BrokerService`, `ManifestCatalog`
/// and `ProcessLauncher`), manifests in a temporary folder, and real app processes.
final class BrokerFixture: @unchecked Sendable {
    let bus: PrivateBus
    let root: URL
    let manifests: URL
    let dataHome: URL
    let launcher: CountingLauncher
    let service: BrokerService
    /// The broker's registry (tests that watch the manifests folder start it).
    let catalog: ManifestCatalog
    let client: BrokerToolClient
    let environment: [String: String]
    /// The registry's state folder (defaults, claims, registrations) when the fixture keeps one;
    /// a restarted broker reads the same.
    let stateFolder: URL?

    /// - Parameters:
    ///   - brokerSearchPath: the broker's `PATH` when it is not the clients' (which has the
    ///     build's products first).
    ///   - persistentState: keep the registry's state in a folder, as courierd does (else in memory).
    init(launchTimeout: Duration = .seconds(10), inboxLimits: DropLimits = .standard, brokerSearchPath: String? = nil, termination: TerminationPolicy = .init(), directLinks: Bool = true, deliveryTimeout: Duration = .seconds(25), persistentState: Bool = false, launchImageDelay: Duration = LaunchImageSettings.defaultDelay, configure: (BrokerFixture.ManifestWriter) throws -> Void = { _ in }) async throws {
        bus = try PrivateBus()
        root = bus.directory.appendingPathComponent("fixture", isDirectory: true)
        manifests = root.appendingPathComponent("manifests", isDirectory: true)
        dataHome = root.appendingPathComponent("data", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        var environment = bus.environment(homesIn: root)
        environment["PATH"] = Products.folder.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        self.environment = environment
        try configure(ManifestWriter(folder: manifests))
        var brokerEnvironment = environment
        if let brokerSearchPath { brokerEnvironment["PATH"] = brokerSearchPath }
        launcher = CountingLauncher(ProcessLauncher(environment: brokerEnvironment, busAddress: bus.address))
        var logger = Logger(label: "courierd.tests")
        logger.logLevel = .error
        // The folder courierd and the CLI use in this environment, so that both see one state.
        stateFolder = persistentState ? URL(fileURLWithPath: CourierLayout(environment: brokerEnvironment).configFolder, isDirectory: true) : nil
        catalog = ManifestCatalog(configuration: Self.registryConfiguration(manifests: manifests, stateFolder: stateFolder), defaultLaunchTimeout: launchTimeout, logger: logger)
        service = BrokerService(
            connection: try bus.connect(), catalog: catalog, busAddress: bus.address, launcher: launcher,
            configuration: .init(
                terminationGrace: .milliseconds(300), crashLoop: .init(threshold: 50), termination: termination,
                savedState: SavedStateStore(layout: CourierLayout(environment: brokerEnvironment))
            ),
            logger: logger,
            inbox: Inbox(containersRoot: dataHome.appendingPathComponent("courier/containers").path, limits: inboxLimits),
            directLinks: directLinks, deliveryTimeout: deliveryTimeout,
            launchImages: LaunchImageSettings(delay: launchImageDelay, folder: root.appendingPathComponent("state/launch-images").path)
        )
        try await service.start()
        client = BrokerToolClient(connection: try bus.connect())
    }

    /// The fixture's folder of manifests, and its state folder when it keeps one.
    static func registryConfiguration(manifests: URL, stateFolder: URL?) -> RegistryService.Configuration {
        .init(folders: [manifests.path], reportMissingFolders: false, stateFolder: stateFolder?.path)
    }

    /// Stops every app process, the broker and the bus.
    func tearDown() {
        for pid in launcher.pids { kill(pid, SIGKILL) }
        service.stop()
        service.connection.close()
        client.connection.close()
        bus.stop()
    }

    /// The container of `bundleID`.
    func container(_ bundleID: String) -> URL {
        dataHome.appendingPathComponent("courier/containers/\(bundleID)", isDirectory: true)
    }

    /// The todolist items stored in the app's container.
    func todoItems(_ bundleID: String = "com.acme.todolist") -> [[String: String]] {
        let file = dataHome.appendingPathComponent("courier/containers/\(bundleID)/Documents/todolist.json")
        guard let data = FileManager.default.contents(atPath: file.path),
              let items = try? JSONSerialization.jsonObject(with: data) as? [[String: String]] else { return [] }
        return items
    }

    /// Runs a program to completion (bounded by the caller's own timeouts), returning status and output.
    func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, output: String, error: String) {
        let completed = try await BackgroundProcess.run(executable, arguments, environment: environment.merging(extra) { _, new in new })
        return (completed.status, completed.output, completed.errors)
    }

    /// Writes Info.plist manifests into the fixture's folder.
    struct ManifestWriter {
        let folder: URL

        func write(_ bundleID: String, schemes: [String], arguments: [String]?, queries: [String] = [], urlFormat: [String: Any]? = nil, extra: [String: Any] = [:]) throws {
            var plist: [String: Any] = [
                "CFBundleIdentifier": bundleID,
                "CFBundleName": bundleID.split(separator: ".").last.map(String.init) ?? bundleID,
                "CFBundleURLTypes": [["CFBundleURLName": bundleID, "CFBundleURLSchemes": schemes]],
            ]
            if let arguments { plist["CourierLaunchArguments"] = arguments }
            if !queries.isEmpty { plist["LSApplicationQueriesSchemes"] = queries }
            if let urlFormat { plist["CourierURLFormat"] = urlFormat }
            plist.merge(extra) { _, new in new }
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            try data.write(to: folder.appendingPathComponent("\(bundleID).plist"))
        }

        /// The real todolist app: the repository's Schemes/com.acme.todolist.plist, launched by
        /// absolute path (or by `arguments`).
        func todolist(arguments: [String]? = nil) throws {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Schemes/com.acme.todolist.plist")
            let data = try Data(contentsOf: source)
            guard var plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw CocoaError(.propertyListReadCorrupt)
            }
            plist["CourierLaunchArguments"] = arguments ?? [Products.path("todolist")]
            let out = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            try out.write(to: folder.appendingPathComponent("com.acme.todolist.plist"))
        }
    }
}

extension BrokerFixture {
    /// Stops the fixture's broker and starts another on the same bus, manifests and homes: it
    /// adopts the apps still running.
    func restartBroker(termination: TerminationPolicy = .init()) async throws -> (BrokerService, CountingLauncher) {
        service.stop()
        service.connection.close()
        // The bus releases the old broker's name once it has seen the connection close.
        for _ in 0..<400 where await client.brokerIsRunning() {
            try await Task.sleep(for: .milliseconds(25))
        }
        var logger = Logger(label: "courierd.tests.restarted")
        logger.logLevel = .error
        let launcher = CountingLauncher(ProcessLauncher(environment: environment, busAddress: bus.address))
        let restarted = BrokerService(
            connection: try bus.connect(), catalog: ManifestCatalog(configuration: Self.registryConfiguration(manifests: manifests, stateFolder: stateFolder), logger: logger),
            busAddress: bus.address, launcher: launcher,
            configuration: .init(terminationGrace: .milliseconds(300), termination: termination), logger: logger,
            inbox: Inbox(containersRoot: dataHome.appendingPathComponent("courier/containers").path)
        )
        try await restarted.start()
        return (restarted, launcher)
    }
}

/// The real `ProcessLauncher`, counting launches.
final class CountingLauncher: Launcher {
    let real: ProcessLauncher
    private let launched = Mutex<[Int32]>([])
    private let exits = Mutex<[Int32: ExitStatus]>([:])

    init(_ real: ProcessLauncher) { self.real = real }

    func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (Int32, ExitStatus) -> Void) throws(CourierError) -> Int32 {
        let pid = try real.launch(spec) { [self] pid, status in
            exits.withLock { $0[pid] = status }
            onExit(pid, status)
        }
        launched.withLock { $0.append(pid) }
        return pid
    }

    func terminate(pid: Int32, grace: Duration) { real.terminate(pid: pid, grace: grace) }
    func kill(pid: Int32) { real.kill(pid: pid) }
    func logTail(bundleID: String, lines count: Int) -> [String] { real.logTail(bundleID: bundleID, lines: count) }
    func isRunningChild(_ pid: Int32, of bundleID: String) -> Bool { real.isRunningChild(pid, of: bundleID) }
    func executablePath(for spec: LaunchSpec) throws(CourierError) -> String { try real.executablePath(for: spec) }

    var count: Int { launched.withLock { $0.count } }
    /// How `pid` ended, once it has been reaped.
    func exitStatus(_ pid: Int32) -> ExitStatus? { exits.withLock { $0[pid] } }
    var pids: [Int32] { launched.withLock { $0 } }
}


/// The Python interpreter with the `dbus` module (Debian's, not the first python3 on PATH).
let systemPython = "/usr/bin/python3"
