import DBus
import CourierBroker
import CourierNames
import Foundation
import Logging
import Synchronization

/// Routing lines are for people running the daemon, not for test output.
let quietLogger: Logger = {
    var logger = Logger(label: "org.courier.broker.tests")
    logger.logLevel = .error
    return logger
}()

/// A fixed routing table: scheme → app.
struct TableResolver: HandlerResolver {
    var apps: [String: AppDescriptor]   // scheme → descriptor

    func resolve(url: String, bundleID: String?) throws(CourierError) -> AppDescriptor {
        if let bundleID {
            guard let app = descriptor(bundleID: bundleID) else { throw CourierError(.noHandler, "no app \(bundleID)") }
            return app
        }
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else { throw CourierError(.invalidURL, "no scheme in \(url)") }
        guard let app = apps[String(url[..<colon])] else { throw CourierError(.noHandler, "no handler for \(url)") }
        return app
    }

    func descriptor(bundleID: String) -> AppDescriptor? {
        apps.values.first { $0.bundleID == bundleID }
    }
}

/// The real `ProcessLauncher`, plus a record of launches and a hook standing in for the app's
/// `CheckIn` (no bus here: the test checks in on the app's behalf once the process runs).
final class RecordingLauncher: Launcher {
    let real: ProcessLauncher
    let launches = Mutex<[(bundleID: String, pid: Int32)]>([])
    let onLaunch = Mutex<(@Sendable (String, Int32) -> Void)?>(nil)

    init(dataHome: URL) {
        real = ProcessLauncher(layout: CourierLayout(environment: ["XDG_DATA_HOME": dataHome.path]))
    }

    func launch(_ spec: LaunchSpec, onExit: @escaping @Sendable (Int32, ExitStatus) -> Void) throws(CourierError) -> Int32 {
        let pid = try real.launch(spec, onExit: onExit)
        launches.withLock { $0.append((spec.bundleID, pid)) }
        if let hook = onLaunch.withLock({ $0 }) { hook(spec.bundleID, pid) }
        return pid
    }

    func terminate(pid: Int32, grace: Duration) { real.terminate(pid: pid, grace: grace) }
    func kill(pid: Int32) { real.kill(pid: pid) }

    var count: Int { launches.withLock { $0.count } }
    var pids: [Int32] { launches.withLock { $0.map(\.pid) } }
}

/// Stands in for the apps: records every delivery in order and answers as told.
final class RecordingDeliverer: Deliverer {
    struct Record: Sendable {
        var bundleID: String
        var url: String
        var isLaunchRequest: Bool
        var sourceApplication: String
    }

    let delivered = Mutex<[Record]>([])
    /// Called before answering; may throw, block, or kill the app.
    let behaviour = Mutex<(@Sendable (Delivery, AppEndpoint) async throws(CourierError) -> DeliveryAnswer)?>(nil)

    func deliver(_ delivery: Delivery, to endpoint: AppEndpoint) async throws(CourierError) -> DeliveryAnswer {
        delivered.withLock { $0.append(Record(bundleID: endpoint.bundleID, url: delivery.url, isLaunchRequest: delivery.isLaunchRequest, sourceApplication: delivery.sourceApplication)) }
        if let behaviour = behaviour.withLock({ $0 }) { return try await behaviour(delivery, endpoint) }
        return DeliveryAnswer(handled: true, reply: ["echo": .string(delivery.url)])
    }

    func urls(for bundleID: String) -> [String] {
        delivered.withLock { $0.filter { $0.bundleID == bundleID }.map(\.url) }
    }
}

/// A temporary data home, removed when the test ends.
final class TemporaryDirectory: Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-broker-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// One dispatcher with real child processes as apps.
struct Harness {
    let directory = TemporaryDirectory()
    let launcher: RecordingLauncher
    let deliverer = RecordingDeliverer()
    let dispatcher: Dispatcher

    /// `apps`: scheme → (bundle id, argv); a `nil` argv is an app Courier cannot launch.
    init(_ apps: [String: (String, [String]?)], launchTimeout: Duration = .seconds(10), crashLoop: CrashLoopPolicy = .init(threshold: 100),
         autoCheckIn: Bool = true, logger: Logger = quietLogger) {
        launcher = RecordingLauncher(dataHome: directory.url)
        var table: [String: AppDescriptor] = [:]
        for (scheme, app) in apps {
            table[scheme] = AppDescriptor(bundleID: app.0, launchArguments: app.1, launchTimeout: launchTimeout)
        }
        dispatcher = Dispatcher(
            resolver: TableResolver(apps: table), launcher: launcher, deliverer: deliverer,
            configuration: .init(terminationGrace: .milliseconds(200), crashLoop: crashLoop),
            logger: logger
        )
        if autoCheckIn {
            let dispatcher = dispatcher
            launcher.onLaunch.withLock {
                $0 = { bundleID, pid in
                    Task { _ = try? dispatcher.checkIn(bundleID: bundleID, uniqueName: ":test.\(pid)") }
                }
            }
        }
    }

    /// A shell script app at `name` in the temporary folder.
    func script(_ name: String, _ body: String, executable: Bool = true) -> String {
        let path = directory.url.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n\(body)\n".utf8), attributes: [.posixPermissions: executable ? 0o755 : 0o644])
        return path
    }
}

/// Waits (bounded) until `condition` holds; used for process side effects, not for timing claims.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

func processExists(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0
}
