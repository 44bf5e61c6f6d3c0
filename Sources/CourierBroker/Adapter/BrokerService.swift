public import CourierInbox
public import DBus
import CourierProtocol
import CourierNames
import Foundation
public import Logging
import Synchronization

/// The D-Bus adapter of the broker: serves `org.courier.Broker1` at `/org/courier/Broker` on one
/// connection and translates calls into calls on the `Dispatcher` and the `ApplicationCatalog`.
///
/// - Order: the dispatcher sees `OpenURL` calls in the order the bus delivered them, so each
///   sender's requests keep the order they were sent in. A call from a caller whose pid is known
///   and with nothing waiting in front is submitted at once, on the I/O thread; the others (a new
///   caller's first call needs `GetConnectionCredentials`) go through one serial intake, and
///   every call after them waits there too until the intake is empty again.
/// - Identity: `sourceApplication` is derived from what the bus vouches for — the unique name an
///   app checked in from, or the pid (`GetConnectionCredentials`) of a process Courier launched —
///   never from the caller's options. A failed lookup means "unknown", never trusted.
/// - App state follows `NameOwnerChanged`: a checked-in app that leaves the bus is not running.
/// - Receivers are verified (`ReceiverGuard`): only a process tied to the app's manifest checks in
///   and receives; a process squatting an app's bus name makes its opens and drops fail with
///   `NameSquatted`.
public final class BrokerService: Sendable {
    public let connection: DBusConnection
    public let dispatcher: Dispatcher
    let catalog: any ApplicationCatalog
    /// Where `DropFiles` places files (`$XDG_DATA_HOME/courier/containers` by default).
    public let inbox: Inbox
    let logger: Logger
    let startedBy: String
    /// Called once this broker owns its name, then after every registry change (RegisterManifest,
    /// Unregister): courierd refreshes the desktop entries from it.
    let registryObserver: (@Sendable () -> Void)?
    let intake: AsyncStream<IntakeItem>.Continuation
    private let intakeStream: AsyncStream<IntakeItem>
    /// Calls in the intake not yet submitted; while there are any, new calls queue behind them.
    private let intakeBacklog = Atomic(0)
    /// unique name → pid, filled lazily from `GetConnectionCredentials`, dropped when the name goes.
    let callerPIDs = Mutex(CallerPIDCache())
    /// Who may receive: CheckIn admission, name holders, the check before each delivery.
    let receivers: ReceiverGuard
    /// Direct links to apps (nil when turned off, or when the broker could not listen).
    let links: AppLinks?
    /// Requests in flight per caller (`--max-requests-per-sender`): BrokerService+SenderQuota.swift.
    let senderQuota: Mutex<SenderQuota>
    /// Drops that did not wait whose apps have not answered yet, per caller (`SenderQuota.unansweredDropsPerCall`).
    let unansweredDrops: Mutex<SenderQuota>
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// The last registry changes, each with who made it (BrokerService+Registry.swift).
    let changeLog = Mutex<[String]>([])
    /// Files handed over ahead of a drop too large for one message (`StageFiles`).
    let stagedFiles: Mutex<StagedFiles>

    struct IntakeItem: Sendable {
        let sender: String
        let url: String
        let options: RequestOptions
        let waits: Bool
        let completion: Dispatcher.Completion
    }

    /// - Parameters:
    ///   - busAddress: given to launched apps as `DBUS_SESSION_BUS_ADDRESS`.
    ///   - launcher: defaults to a `ProcessLauncher` with the current environment.
    ///   - startedBy: how this broker was started, for `GetStatus` ("bus activation", "command line", …).
    ///   - maxRequestsPerSender: requests one caller may have in flight before `LimitsExceeded`
    ///     (and `SenderQuota.unansweredDropsPerCall` times as many drops without wait unanswered).
    ///   - deliveryTimeout: how long an app may take over a request before it is `NotResponding`.
    ///   - launchImages: when and where launch images are shown (`LaunchImagePresenter`); nil: never.
    public init(
        connection: DBusConnection,
        catalog: any ApplicationCatalog,
        busAddress: String?,
        launcher: (any Launcher)? = nil,
        configuration: Dispatcher.Configuration = .init(),
        logger: Logger = Logger(label: "org.courier.broker"),
        startedBy: String = "command line",
        observer: (@Sendable (DispatcherEvent) -> Void)? = nil,
        inbox: Inbox? = nil,
        registryObserver: (@Sendable () -> Void)? = nil,
        maxRequestsPerSender: Int = SenderQuota.defaultLimit,
        directLinks: Bool = true,
        deliveryTimeout: Duration = .seconds(25),
        launchImages: LaunchImageSettings? = nil
    ) {
        self.senderQuota = Mutex(SenderQuota(limit: maxRequestsPerSender))
        self.unansweredDrops = Mutex(SenderQuota(limit: maxRequestsPerSender * SenderQuota.unansweredDropsPerCall))
        self.registryObserver = registryObserver
        self.connection = connection
        self.catalog = catalog
        self.inbox = inbox ?? Inbox(containersRoot: CourierLayout.current().containersRoot)
        self.stagedFiles = Mutex(StagedFiles(limit: self.inbox.limits.maximumFileCount))
        self.logger = logger
        self.startedBy = startedBy
        var configuration = configuration
        if configuration.taskExecutor == nil { configuration.taskExecutor = connection.executor }
        let launcher = launcher ?? ProcessLauncher(busAddress: busAddress)
        let receivers = ReceiverGuard(verifier: ReceiverVerifier(launcher: launcher, resolver: catalog), connection: connection, resolver: catalog, logger: logger)
        self.receivers = receivers
        var links: AppLinks?
        if directLinks {
            do {
                links = try AppLinks(receivers: receivers, logger: logger)
            } catch {
                logger.warning("\(error.message); every delivery goes through the bus")
            }
        }
        self.links = links
        let presenter = launchImages.map { settings in
            LaunchImagePresenter(settings: settings, connection: connection, executor: configuration.taskExecutor, logger: logger) { [catalog] in
                catalog.descriptor(bundleID: $0)
            }
        }
        self.dispatcher = Dispatcher(
            resolver: catalog,
            launcher: GuardedLauncher(base: launcher, receivers: receivers),
            deliverer: GuardedDeliverer(base: BusDeliverer(connection: connection, links: links, defaultTimeout: deliveryTimeout), receivers: receivers),
            configuration: configuration,
            logger: logger,
            observer: { [connection] event in
                if case .stateChanged(let bundleID, let state) = event {
                    Self.emitStateChanged(on: connection, bundleID: bundleID, state: state)
                }
                presenter?.observe(event)
                observer?(event)
            }
        )
        (intakeStream, intake) = AsyncStream.makeStream(of: IntakeItem.self, bufferingPolicy: .unbounded)
    }

    /// Serves the interface, follows name owners, then owns `org.courier.Broker`.
    /// Throws when another broker already owns the name.
    public func start() async throws {
        sweepInboxes()
        try connection.export([brokerInterface()], at: Broker1.objectPath)
        let changes = try await connection.nameOwnerChanges()
        let dispatcher = dispatcher
        let watcher = Task { [self] in
            for await change in changes {
                // A well-known name is an app's bus name, which need not be its bundle id (`BundleIdentifier`).
                let bundleID = change.name.isUnique ? "" : ApplicationAddress.bundleID(ofBusName: change.name.rawValue) { catalog.applications().map(\.bundleID) }
                if !change.name.isUnique { receivers.nameOwnerChanged(bundleID, newOwner: change.newOwner?.rawValue) }
                guard let old = change.oldOwner, change.newOwner == nil else { continue }
                if change.name.isUnique {
                    callerPIDs.withLock { $0.vanished(old.rawValue) }
                    senderQuota.withLock { $0.forget(old.rawValue) }
                    unansweredDrops.withLock { $0.forget(old.rawValue) }
                    receivers.uniqueNameVanished(old.rawValue)
                    links?.uniqueNameVanished(old.rawValue)
                    stagedFiles.withLock { if !$0.isEmpty { $0.forget(old.rawValue) } }
                    dispatcher.busNameVanished(old.rawValue)
                } else {
                    dispatcher.bundleNameReleased(bundleID, by: old.rawValue)
                }
            }
        }
        let consumer = Task(executorPreference: connection.executor) { [self] in await runIntake() }
        let registryChanges = await catalog.changes()
        let announcer = Task { [self] in
            for await change in registryChanges { emitRegistryChanged(change) }
        }
        tasks.withLock { $0 += [watcher, consumer, announcer] }
        // A manifest file that would take over a running app waits (RegistryAuthority).
        catalog.holdTakeovers { [weak self] in self?.runningApps() ?? [] }
        dispatcher.startTerminationPolicies()
        await adoptRunningApps()   // before the name: no request can arrive first
        let reply = try await connection.requestName(Broker1.busName, flags: [.doNotQueue])
        guard reply.isOwner else {
            stop()
            throw CourierError(.notPermitted, "another broker already owns \(Broker1.busName) on this bus; use it, or stop it first")
        }
        registryObserver?()
        // Once the name is owned (the apps check in with it), not waited for: a run-at-load app's
        // failure is in the log and in `courier status ID`. A disabled one stays down.
        dispatcher.startAtLoad(catalog.applications().compactMap { catalog.descriptor(bundleID: $0.bundleID) }.filter { $0.runAtLoad && !catalog.isDisabled($0.bundleID) })
        let apps = catalog.applications().count
        logger.info("courierd serving \(Broker1.name) as \(Broker1.busName) (\(connection.uniqueName?.rawValue ?? "?")); \(apps) app\(apps == 1 ? "" : "s") from \(catalog.manifestPaths.joined(separator: ":"))")
    }

    /// `start`, then serve until the bus connection ends.
    public func run() async throws {
        try await start()
        await connection.waitUntilDisconnected()
        stop()
    }

    /// The unique names of the app instances whose deliveries go over a direct link (`AppLinks`).
    package var directlyLinked: Set<String> { links?.linked ?? [] }

    /// Where apps attach their direct links (`link-address` in `CheckIn`'s answer), nil without links.
    package var directLinkAddress: String? { links?.address }

    public func stop() {
        receivers.stop()
        links?.stop()
        dispatcher.stopTerminationPolicies()
        intake.finish()
        tasks.withLock { $0.forEach { $0.cancel() } }
    }

    // MARK: Intake (ordered)

    /// Routes one `OpenURL` from `sender`, in call order (see the type's notes on order).
    /// `waits`: the caller waits for the answer (not a call flagged "no reply expected").
    func open(url: String, options: RequestOptions, sender: String, waits: Bool = true, completion: @escaping Dispatcher.Completion) {
        if intakeBacklog.load(ordering: .acquiring) == 0, let identity = knownIdentity(of: sender) {
            var request = Self.request(url: url, options: options, sender: sender)
            request.callerIdentity = identity
            request.callerWaits = waits
            return dispatcher.submit(request, completion: completion)
        }
        intakeBacklog.add(1, ordering: .acquiringAndReleasing)
        intake.yield(IntakeItem(sender: sender, url: url, options: options, waits: waits, completion: completion))
    }

    private func runIntake() async {
        for await item in intakeStream {
            var request = Self.request(url: item.url, options: item.options, sender: item.sender)
            request.callerIdentity = CallerIdentity(uniqueName: item.sender, pid: await callerPID(item.sender))
            request.callerWaits = item.waits
            dispatcher.submit(request, completion: item.completion)
            intakeBacklog.subtract(1, ordering: .acquiringAndReleasing)
        }
    }

    /// The caller's identity when it needs no lookup: its pid is cached, or it has no unique name
    /// to look up. nil when `GetConnectionCredentials` must be asked first.
    private func knownIdentity(of sender: String) -> CallerIdentity? {
        guard let name = BusName(validating: sender), name.isUnique else { return CallerIdentity(uniqueName: sender, pid: nil) }
        return callerPIDs.withLock { $0.cached(sender) }.map { CallerIdentity(uniqueName: sender, pid: Int32(bitPattern: $0)) }
    }

    /// The pid the bus vouches for (`GetConnectionCredentials`), cached per unique name until the
    /// name leaves the bus; nil when the bus cannot tell or the name left meanwhile (then the caller
    /// is simply not identified: a failed lookup never falls back on a stale answer).
    func callerPID(_ sender: String) async -> Int32? {
        guard let name = BusName(validating: sender), name.isUnique else { return nil }
        let cached = callerPIDs.withLock { cache -> UInt32? in
            if let pid = cache.cached(sender) { return pid }
            cache.beginLookup(sender)
            return nil
        }
        if let cached { return Int32(bitPattern: cached) }
        let answer = (try? await connection.credentials(of: name))?.processID
        return callerPIDs.withLock { $0.finishLookup(sender, pid: answer) }.map { Int32(bitPattern: $0) }
    }

    /// The bundle id of the app behind `sender`, from the broker's own knowledge; "" otherwise.
    func sourceApplication(of sender: String) async -> String {
        guard !sender.isEmpty else { return "" }
        return dispatcher.sourceApplication(uniqueName: sender, pid: await callerPID(sender))
    }

    /// The request as the dispatcher sees it: the caller's options, and no fact yet (the
    /// dispatcher derives the source application from `callerIdentity`).
    static func request(url: String, options: RequestOptions, sender: String) -> OpenRequest {
        OpenRequest(url: url, bundleID: options.bundleID, caller: sender, options: options.caller)
    }
}
