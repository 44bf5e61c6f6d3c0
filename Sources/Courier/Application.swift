public import CourierNames
import DBus
import CourierProtocol
public import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What an app links to receive URLs: owns its bundle id as a bus name, serves
/// `org.courier.Application1` and `org.freedesktop.Application` at the path made from the bundle id
/// (`com.acme.todolist` → `/com/acme/todolist`), checks in with the broker and calls its delegate.
///
/// Security: `OpenURL` is accepted only from the current owner of `org.courier.Broker`; anyone
/// else gets `org.courier.Error.NotPermitted`, so `sourceApplication` is always the broker's word.
/// `org.freedesktop.Application.Open` (desktop tools) is refused unless the app opts in
/// (`acceptsFreedesktopOpen`); then each URI goes back through the broker, which checks it and
/// delivers it like any other request from a caller that is no Courier app (its caller rules apply).
///
/// ```swift
/// try await Application(delegate: MyDelegate()).run()
/// ```
public final class Application: Sendable {
    public let bundleID: String
    let connection: DBusConnection
    let objectPath: ObjectPath
    /// The well-known name the app owns: its bundle id mapped to a bus name (`ApplicationAddress`).
    let busName: BusName
    /// The app's container (`COURIER_CONTAINER`, else `$XDG_DATA_HOME/courier/containers/<bundle-id>`).
    public let containerURL: URL
    /// The broker client on this app's connection (openURL / canOpenURL to other apps).
    public var broker: BrokerClient { BrokerClient(connection: connection) }
    /// `containerURL/Documents`.
    public var documentsURL: URL { containerURL.appendingPathComponent(CourierLayout.documentsInContainer, isDirectory: true) }
    /// The app's version, written into each preserved state (`RestorableStateCoder.bundleVersion`)
    /// so a later version can refuse an archive it cannot read.
    public let version: String

    private let delegate: any ApplicationDelegate
    /// Whether `org.freedesktop.Application.Open` is served (an opt-in: see `init`).
    public let acceptsFreedesktopOpen: Bool
    private let gate = LaunchGate()
    private let state = Mutex<State>(State())

    private struct State {
        var brokerOwner: BusName?
        var declinedLaunchRequest: UInt64?
        var launchOptions = ApplicationLaunchOptions()
        var registrations: [DBusObjectRegistration] = []
        var watcher: Task<Void, Never>?
        /// Set once the launch methods have run (then deliveries skip the gate).
        var launched = false
        /// The direct link to the broker, once attached (`BrokerLink`).
        var link: BrokerLink?
        /// Set by `stop`: a link attached after it is closed at once.
        var stopped = false
    }

    /// The app connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`), as every D-Bus client does.
    ///
    /// - Parameters:
    ///   - bundleID: defaults to `COURIER_BUNDLE_ID` (set by the broker when it launches the app).
    ///   - version: the app's version, recorded in its preserved state.
    ///   - acceptsFreedesktopOpen: serve `org.freedesktop.Application.Open` (default: refused with
    ///     `NotPermitted`). Any process may call it, with no identity the broker can check: an app
    ///     that opts in hands each URI to the broker as its own `OpenURL` (with `bundle-id` = this
    ///     app, so only schemes it claims, checked against its URL format) marked `relayed`: the
    ///     broker applies the app's caller rules as for a caller that is no Courier app, and the URL
    ///     arrives with no `sourceApplication` — docs/security.md.
    public convenience init(bundleID: String? = nil, version: String = "1", delegate: any ApplicationDelegate,
                            acceptsFreedesktopOpen: Bool = false) throws(CourierError) {
        try self.init(bundleID: bundleID, version: version, delegate: delegate, connection: nil, acceptsFreedesktopOpen: acceptsFreedesktopOpen)
    }

    /// The same on a given bus connection (the library's tests run an app in their own process,
    /// on a private bus).
    init(bundleID: String? = nil, version: String = "1", delegate: any ApplicationDelegate, connection: DBusConnection?,
         acceptsFreedesktopOpen: Bool = false) throws(CourierError) {
        self.acceptsFreedesktopOpen = acceptsFreedesktopOpen
        let environment = CourierLayout.processEnvironment(Application.environmentNames)
        guard let bundleID = bundleID ?? environment["COURIER_BUNDLE_ID"], !bundleID.isEmpty else {
            throw CourierError(.invalidBundleID, "COURIER_BUNDLE_ID is not set: Courier sets it when it launches the app (`courier open URL`); to run the app by hand, set it to the CFBundleIdentifier of its manifest, e.g. COURIER_BUNDLE_ID=com.example.app \(CommandLine.arguments.first ?? "app")")
        }
        self.bundleID = bundleID
        let address = try ApplicationAddress(bundleID: bundleID)
        (self.busName, self.objectPath) = (address.busName, address.objectPath)
        self.version = version
        self.delegate = delegate
        if let connection {
            self.connection = connection
        } else {
            self.connection = try BrokerClient.session().connection
        }
        self.containerURL = Application.defaultContainer(bundleID: bundleID, environment: environment)
        StandardOutput.bufferLines()
    }

    /// The variables an app reads at start: its bundle id and its layout's. Read one by one
    /// (`getenv`): copying the whole environment into a dictionary (`ProcessInfo.environment`)
    /// was about a tenth of the library's start-up instructions.
    static let environmentNames = ["COURIER_BUNDLE_ID"] + CourierLayout.environmentNames

    /// `COURIER_CONTAINER` when set, else where the broker makes it (`CourierLayout.appContainer`).
    public static func defaultContainer(bundleID: String, environment: [String: String] = CourierLayout.currentEnvironment()) -> URL {
        URL(fileURLWithPath: containerPath(bundleID: bundleID, environment: environment), isDirectory: true)
    }

    /// `Documents` in ``defaultContainer(bundleID:environment:)``: where the app keeps its files,
    /// before an `Application` exists (for its store, say); ``documentsURL`` once it does.
    public static func defaultDocuments(bundleID: String, environment: [String: String] = CourierLayout.currentEnvironment()) -> URL {
        URL(fileURLWithPath: containerPath(bundleID: bundleID, environment: environment) + "/" + CourierLayout.documentsInContainer, isDirectory: true)
    }

    private static func containerPath(bundleID: String, environment: [String: String]) -> String {
        let layout = CourierLayout(environment: environment)
        return BundleIdentifier(validating: bundleID).map(layout.appContainer(for:))
            ?? layout.givenContainer ?? layout.containersRoot + "/" + bundleID
    }

    /// The launch options `CheckIn` returned (empty before `start`).
    public var launchOptions: ApplicationLaunchOptions { state.withLock { $0.launchOptions } }

    /// Serves the interfaces, owns the bundle id (watching the broker's name) and checks in: the
    /// launch options the broker answered, and its unique name.
    private func checkIn() async throws(CourierError) -> (options: [String: DBusValue], broker: BusName?) {
        do {
            let registration = try connection.export([applicationInterface(), freedesktopInterface()], at: objectPath)
            state.withLock { $0.registrations = [registration] }
        } catch {
            throw CourierError(.bus, "cannot serve \(objectPath): \(error.message)")
        }
        let brokerName = Broker1.busName
        do {
            // The match for the broker's NameOwnerChanged and the RequestName go out together: two
            // bus round trips in the time of one, on the start-up's critical path (a cold open).
            async let subscription = connection.nameOwnerChanges(for: brokerName)
            async let request = connection.requestName(busName, flags: [.doNotQueue])
            let changes = try await subscription
            let reply = try await request
            let watcher = Task { [self] in
                for await change in changes {
                    let (checkInAgain, oldLink) = state.withLock { state -> (Bool, BrokerLink?) in
                        state.brokerOwner = change.newOwner
                        defer { state.link = nil }
                        return (state.launched && change.newOwner != nil, state.link)
                    }
                    oldLink?.close()   // it led to the broker that went away
                    // A broker that restarted does not know this instance: check in with it again
                    // (it adopts a running app whose process it can tie to the manifest).
                    if checkInAgain, let answer = try? await broker.checkInAnswer(bundleID: bundleID) {
                        await attachLink(answer.options, broker: answer.broker)
                    }
                }
            }
            state.withLock { $0.watcher = watcher }
            guard reply.isOwner else {
                var pid: UInt32?
                if let holder = (try? await connection.nameOwner(of: busName)) ?? nil {
                    pid = (try? await connection.credentials(of: holder))?.processID
                }
                throw CourierError(.notPermitted, "another process\(pid.map { " (pid \($0))" } ?? "") already owns \(busName), the bus name of \(bundleID): an instance of the app is running, or another program took its name")
            }
        } catch {
            throw CourierError(wrapping: error)
        }
        // The broker's unique name comes with its answer: the first OpenURL needs no GetNameOwner.
        return try await broker.checkInAnswer(bundleID: bundleID)
    }

    /// Serves the interfaces, owns the bundle id, checks in and runs the delegate's launch methods.
    /// Returns the launch options; URLs are delivered from then on.
    @discardableResult
    public func start() async throws(CourierError) -> ApplicationLaunchOptions {
        // The bus handshake runs on the connection's I/O thread (its task executor): each reply
        // resumes the start-up where it arrives, with no hop to — and no wake-up, or first start,
        // of — a thread of the global pool between the round trips of a cold open.
        let (dictionary, brokerOwner) = try await withTaskExecutorPreference(connection.executor) { () async throws(CourierError) in
            try await checkIn()
        }
        state.withLock { if $0.brokerOwner == nil { $0.brokerOwner = brokerOwner } }
        // Off the start-up's path: until the link is attached, URLs arrive over the bus.
        Task { await attachLink(dictionary, broker: brokerOwner) }
        let options = ApplicationLaunchOptions(dictionary: dictionary)
        var accepted = delegate.willFinishLaunching(self, options: options)
        if accepted, let archive = options.restorationArchive { await restore(archive) }
        accepted = accepted && delegate.didFinishLaunching(self, options: options)
        state.withLock {
            $0.launchOptions = options
            if !accepted { $0.declinedLaunchRequest = options.requestID }
        }
        await gate.open()
        state.withLock { $0.launched = true }
        return options
    }

    /// Offers a preserved state to the delegate (the guide's restoration, between will- and
    /// didFinishLaunching). An archive this library cannot read is reported and ignored.
    private func restore(_ archive: [UInt8]) async {
        let coder: RestorableStateCoder
        do {
            coder = try RestorableStateCoder(archive: archive, bundleID: bundleID)
        } catch {
            Self.report("\(bundleID): \(error.message)")
            return
        }
        guard await delegate.shouldRestoreApplicationState(self, coder: coder) else { return }
        await delegate.didDecodeRestorableState(self, coder: coder)
    }

    /// Preserves the app's state now, if the delegate opts in (`shouldSaveApplicationState`):
    /// `willEncodeRestorableState` fills a coder, which is written atomically to the container
    /// (`SavedState/state.archive`, mode 0600). The library does this when the broker sends
    /// `WillTerminate`; an app may also call it at moments it chooses (after a change a person
    /// would not want to lose). Returns whether a state was written.
    @discardableResult
    public func preserveState() async throws(CourierError) -> Bool {
        guard await delegate.shouldSaveApplicationState(self) else { return false }
        var coder = RestorableStateCoder(bundleVersion: version)
        await delegate.willEncodeRestorableState(self, coder: &coder)
        try StateArchiveFile(container: containerURL).write(try coder.archived(bundleID: bundleID))
        return true
    }

    /// One line on standard error: the library has no logger, and these are for the app's developer.
    private static func report(_ line: String) {
        writeStandardError("courier: \(line)\n")
    }

    /// `start`, then serve until the bus connection ends (or `stop`).
    ///
    /// For an app's `main`: when the app cannot start — its bus name is taken by another process,
    /// the broker refuses its `CheckIn`, there is no bus — it ends the process with one line on
    /// standard error and exit status 1, never a trap and a backtrace. Call `start` to handle
    /// those errors yourself.
    public func run() async throws(CourierError) {
        do {
            try await start()
        } catch {
            writeStandardError("\(bundleID): \(error.message)\n")
            exit(1)
        }
        await connection.waitUntilDisconnected()
    }

    /// Stops serving and closes the connection.
    public func stop() {
        let (registrations, watcher, link) = state.withLock { state in
            state.stopped = true
            return (state.registrations, state.watcher, state.link)
        }
        registrations.forEach { $0.remove() }
        watcher?.cancel()
        link?.close()
        connection.close()
    }

    /// The direct link to the broker, when one is attached (for the tests).
    var brokerLink: BrokerLink? { state.withLock { $0.link } }

    /// Attaches the direct link `CheckIn`'s answer offers (`link-address`), if the process serving
    /// it is the broker that answered (`BrokerLink`). Without one, or when it fails, URLs keep
    /// arriving over the bus: a link only makes them faster.
    private func attachLink(_ answer: [String: DBusValue], broker: BusName?) async {
        guard let address = answer[CourierKey.linkAddress], let broker,
              let pid = try? await connection.credentials(of: broker).processID else { return }
        do {
            let link = try await BrokerLink.attach(to: address, brokerPID: pid, bundleID: bundleID, serving: [linkInterface()], at: objectPath,
                                                   confirmingOn: connection, to: broker)
            let (previous, current) = state.withLock { state -> (BrokerLink?, Bool) in
                // The broker changed while the link was being made (this one leads to the old
                // one), or the app stopped meanwhile.
                guard state.brokerOwner == broker, !state.stopped else { return (nil, false) }
                defer { state.link = link }
                return (state.link, true)
            }
            previous?.close()
            if !current { link.close() }
        } catch {
            Self.report("\(bundleID): URLs arrive over the bus (no direct link: \(error.reason))")
        }
    }

    /// True when `sender` owns `org.courier.Broker` now (asks the bus when the cache disagrees).
    private func isBroker(_ sender: BusName) async -> Bool {
        if state.withLock({ $0.brokerOwner }) == sender { return true }
        let owner = (try? await connection.nameOwner(of: Broker1.busName)) ?? nil
        state.withLock { $0.brokerOwner = owner }
        return owner == sender
    }

    /// `OpenURL (s url, s source_application, v annotation, a{sv} options) → (b handled, a{sv} reply)`,
    /// from the broker (checked by the caller): waits for the launch methods, answers a launch
    /// request the delegate declined with `false`, else asks the delegate.
    private func open(_ arguments: [DBusValue]) async -> [DBusValue] {
        // One look at the state: the common case (launched, not the declined launch request)
        // then needs no await before the delegate.
        let request = ApplicationOpenRequest(arguments)
        let all = request.options
        let requestID = all[CourierKey.requestID]
        let (launched, declined) = state.withLock { ($0.launched, requestID != nil && $0.declinedLaunchRequest == requestID) }
        if !launched { await gate.wait() }
        if declined || (!launched && requestID != nil && state.withLock({ $0.declinedLaunchRequest == requestID })) {
            return ApplicationOpenReply(handled: false, reply: [:]).body
        }
        let url = request.url
        let options = OpenURLOptions(
            sourceApplication: request.sourceApplication, annotation: request.annotation.map(CourierValue.init),
            activationToken: all[CourierKey.activationToken], background: all[CourierKey.background] ?? false,
            inbox: all[CourierKey.inbox] ?? false, all: all.courierValues
        )
        // Arguments for a running instance; a launch had them in its argv already.
        let arguments = all[CourierKey.arguments].flatMap { all[CourierKey.launch] == true ? nil : $0 }
        let accepted = if let arguments { await delegate.handleArguments(arguments, application: self) } else { false }
        let result = await delegate.openWithReply(url, options: options, application: self)
        var reply = result.reply.dbusValues
        if arguments != nil { reply[CourierKey.argumentsAccepted] = accepted }
        return ApplicationOpenReply(handled: result.handled, reply: reply).body
    }

    /// What the app serves on its direct link: `OpenURL` only. Every call on the link comes from
    /// the broker's process (`BrokerLink` checked who listens), so there is no sender to check.
    private func linkInterface() -> DBusInterface {
        DBusInterface(Application1.name, methods: [openURLMethod(onTheBus: false)])
    }

    /// `Application1.OpenURL`; on the bus, only from the current owner of `org.courier.Broker`.
    private func openURLMethod(onTheBus: Bool) -> DBusMethod {
        Application1.openURL.serving { [self] call in
            if onTheBus {
                guard let sender = call.sender else { throw CourierError(.notPermitted, "\(Application1.openURL.name) needs a bus sender").dbusError }
                // The broker as cached (the common case) needs no await before the delegate.
                let fromBroker = if sender == state.withLock({ $0.brokerOwner }) { true } else { await isBroker(sender) }
                guard fromBroker else {
                    throw CourierError(.notPermitted, "\(bundleID) accepts \(Application1.openURL.name) only from the Courier broker (the owner of \(Broker1.busName)); open URLs through it: courier open URL").dbusError
                }
            }
            return await open(call.arguments)
        }
    }

    private func applicationInterface() -> DBusInterface {
        Application1.interface.serving([
            openURLMethod(onTheBus: true),
            // The broker is about to terminate this app: preserve the state, tell the delegate,
            // answer. The broker signals the process once answered, or at the deadline.
            Application1.willTerminate.serving { [self] call in
                guard let sender = call.sender, await isBroker(sender) else {
                    throw CourierError(.notPermitted, "\(bundleID) accepts \(Application1.willTerminate.name) only from the Courier broker (the owner of \(Broker1.busName))").dbusError
                }
                do {
                    try await preserveState()
                } catch {
                    Self.report("\(bundleID): the state was not preserved: \(CourierError(wrapping: error).message)")
                }
                await delegate.willTerminate(self)
                return []
            },
        ])
    }

    /// `org.freedesktop.Application`: desktop tools (gio, GApplication launchers) can speak to the app
    /// directly; `Open` goes back through the broker so identity and ordering rules still hold.
    private func freedesktopInterface() -> DBusInterface {
        FreedesktopApplication.interface.serving([
            FreedesktopApplication.activate.serving { _ in [] },
            FreedesktopApplication.open.serving { [self] call in
                guard acceptsFreedesktopOpen else {
                    throw CourierError(.notPermitted, "\(bundleID) does not accept \(FreedesktopApplication.name).\(FreedesktopApplication.open.name) (it would open URLs for a caller nobody identifies); open URLs through the Courier broker: courier open URL").dbusError
                }
                let uris = call.arguments[0].stringArrayValue ?? []
                let platform = call.arguments[1].vardictValue ?? [:]
                let token = platform[CourierKey.activationToken] ?? platform[CourierKey.desktopStartupID]
                for uri in uris {
                    do {
                        // Relayed: the broker applies the app's caller rules as for a caller it cannot identify.
                        _ = try await broker.open(uri, options: OpenOptions(bundleID: bundleID, activationToken: token, relayed: true))
                    } catch {
                        throw CourierError(wrapping: error).dbusError
                    }
                }
                return []
            },
            FreedesktopApplication.activateAction.serving { call in
                throw DBusError(name: DBusError.notSupportedName, message: "this app has no actions")
            },
        ])
    }
}
