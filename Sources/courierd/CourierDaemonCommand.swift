import ArgumentParser
import CourierBroker
import CourierInbox
import CourierManifest
import CourierNames
import DBus
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `courierd`: the Courier broker on the session bus.
@main
struct CourierDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courierd",
        abstract: "The Courier broker: routes openURL requests to the app that owns the URL, launching it when needed.",
        discussion: """
            Owns org.courier.Broker on the session bus and serves org.courier.Broker1 at /org/courier/Broker.
            Manifests are read from the --manifests folders, else COURIER_MANIFEST_PATH (colon-separated), \
            else $XDG_DATA_HOME/courier/manifests and the system folders; they are reloaded when they change. \
            Defaults chosen with `courier default` are read from $XDG_CONFIG_HOME/courier. Log level: --log-level or COURIER_LOG_LEVEL \
            (trace, debug, info, notice, warning, error, critical; default info). One info line is logged per routing decision.
            """,
        version: CourierVersion.current
    )

    @Option(name: .long, help: "A folder (or file) of Info.plist manifests; repeatable.")
    var manifests: [String] = []

    @Option(name: .long, help: "Log level (overrides COURIER_LOG_LEVEL).")
    var logLevel: String?

    @Option(name: .long, help: "How this broker was started, as `courier status` reports it (default: COURIER_STARTED_BY, else \"bus activation\" when DBUS_STARTER_BUS_TYPE is set, else \"command line\").")
    var startedBy: String?

    @Option(name: .long, help: "Seconds an app has to check in after launch, unless its manifest says otherwise.")
    var launchTimeout: Double = 10

    @Option(name: .long, help: "Requests (OpenURL, DropFiles, CanOpenURL, HandlersForURL) one client connection may have in flight; beyond it they are refused with org.courier.Error.LimitsExceeded. Drops that do not wait for the app (wait false) may have \(SenderQuota.unansweredDropsPerCall) times as many unanswered.")
    var maxRequestsPerSender: Int = SenderQuota.defaultLimit

    @OptionGroup var termination: TerminationOptions

    @Option(name: .long, help: "Milliseconds a launch for a URL may take before the app's launch image (UILaunchImageFile, docs/manifest.md) is shown as a desktop notification; 0 shows no launch images.")
    var launchImageDelay: Int = 150

    @Flag(name: .long, help: "Do not write desktop entries and mimeapps.list defaults for the registered apps (also COURIER_DESKTOP_ENTRIES=0).")
    var noDesktopEntries = false

    @Flag(name: .long, help: "Deliver every URL through the session bus, where dbus-monitor sees it, instead of over the direct link each Courier app attaches (also COURIER_DIRECT_LINKS=0; docs/security.md, \"Direct links\").")
    var noDirectLinks = false

    func validate() throws {
        guard launchImageDelay >= 0 else { throw ValidationError("--launch-image-delay: \(launchImageDelay) is negative; give milliseconds (150 by default), or 0 for no launch images") }
        guard maxRequestsPerSender >= 1 else {
            throw ValidationError("--max-requests-per-sender must be at least 1 (got \(maxRequestsPerSender)); the default is \(SenderQuota.defaultLimit)")
        }
    }

    func run() async throws {
        // Started by bus activation, stdout/stderr may be pipes nobody reads: a log line must
        // never kill the broker. (Apps it launches get default dispositions back.)
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessInfo.processInfo.environment
        let levelName = logLevel ?? environment["COURIER_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            throw ValidationError("unknown log level '\(levelName)'; use trace, debug, info, notice, warning, error or critical")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "courierd")
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw ValidationError("DBUS_SESSION_BUS_ADDRESS is not set: run courierd inside a desktop session or under dbus-run-session")
        }
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address)
        } catch {
            throw ValidationError("cannot connect to the session bus at \(address): \(error.message)")
        }
        let reason = ExitReason()
        let terminate = TerminationSignals { number in
            reason.signalled(number)
            logger.info("signal \(number): closing the bus connection; courierd exits")
            connection.close()
        }
        defer { terminate.cancel() }
        let layout = CourierLayout(environment: environment)
        let catalog = ManifestCatalog(
            configuration: .standard(manifestFolders: manifests, layout: layout),
            defaultLaunchTimeout: .milliseconds(Int64(launchTimeout * 1000)),
            logger: logger
        )
        let desktopEntries = noDesktopEntries || environment["COURIER_DESKTOP_ENTRIES"] == "0"
            ? nil : DesktopEntries.start(catalog: catalog, environment: environment, logger: logger)
        var registryObserver: (@Sendable () -> Void)?
        if let desktopEntries {
            registryObserver = { desktopEntries.update(DesktopEntries.apps(catalog)) }
        }
        await catalog.startWatching()
        let launcher = ProcessLauncher(busAddress: address, layout: layout)
        let configFile: LifecycleConfigFile
        do {
            configFile = try LifecycleConfigFile(path: layout.configFolder + "/courierd.conf")
        } catch {
            throw ValidationError(error.description)
        }
        let termination = self.termination.policy(over: configFile)
        if let pressure = termination.memoryPressure {
            do {
                _ = try pressure.source.read()
            } catch {
                throw ValidationError("--memory-pressure: \(error.message)")
            }
        }
        let service = BrokerService(
            connection: connection, catalog: catalog, busAddress: address, launcher: launcher,
            configuration: .init(termination: termination, savedState: SavedStateStore(layout: layout)),
            logger: Logger(label: "courierd"),
            startedBy: startedBy ?? environment["COURIER_STARTED_BY"] ?? (environment["DBUS_STARTER_BUS_TYPE"] != nil ? "bus activation" : "command line"),
            inbox: Inbox(containersRoot: layout.containersRoot),
            registryObserver: registryObserver,
            maxRequestsPerSender: maxRequestsPerSender,
            directLinks: !(noDirectLinks || environment["COURIER_DIRECT_LINKS"] == "0"),
            launchImages: launchImageDelay == 0 ? nil : LaunchImageSettings(delay: .milliseconds(launchImageDelay), folder: layout.stateFolder + "/launch-images")
        )
        do {
            try await service.run()
        } catch let error as CourierError {
            logger.error("\(error.message)")
            throw ExitCode(CourierExitCode(error.code).rawValue)
        }
        // A signal ends courierd at once: the desktop entries being written (thousands of schemes
        // take seconds) are not waited for. Each file is replaced whole, so an interrupted sync
        // leaves the previous entries or the new ones, and the next start writes them again.
        guard reason.signal == nil else {
            logger.info("courierd exits without waiting for the desktop entries (the next start writes them)")
            return
        }
        // The bus went away (or closed our connection). Apps we launched were on the same bus and
        // lose it too — a Courier app then ends — so reap them for a moment; any still running
        // are left alone (not signalled: they may hold a person's work) and outlive the broker.
        let remaining = await launcher.waitForChildren(upTo: .seconds(2))
        await desktopEntries?.flush()
        let left = remaining.isEmpty ? "" : "; \(remaining.count) launched app(s) still running are left alone (pids \(remaining.sorted().map(String.init).joined(separator: " ")))"
        logger.notice("the bus connection closed (the bus daemon went away or disconnected us); courierd exits, and bus activation starts a new one on the next request\(left)")
    }
}
