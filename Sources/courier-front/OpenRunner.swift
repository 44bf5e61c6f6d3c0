import DBus
#if canImport(Glibc)
import Glibc
#endif

/// `courier open` for the command lines `OpenCommandLine` accepts: one `Broker1.OpenURL` per URL
/// on one session-bus connection, with the full CLI's output and exit statuses
/// (`OpenCommand`, `OpenExitCode`). What only the full CLI can do — start `courierd` when no
/// broker runs, hand a URL no Courier app owns to the desktop — is done by running it for that URL.
struct OpenRunner {
    let request: OpenCommandLine

    init(_ request: OpenCommandLine) {
        self.request = request
    }

    static let brokerName: BusName = "org.courier.Broker"
    static let brokerPath: ObjectPath = "/org/courier/Broker"
    static let brokerInterface: InterfaceName = "org.courier.Broker1"
    static let errorPrefix = "org.courier.Error."

    /// The exit status: 0 when every URL was handled, else the first failure's (`OpenExitCode`).
    func run() async -> Int32 {
        let connection: DBusConnection
        do {
            connection = try DBusConnection.session()
        } catch {
            FullCLI.exec(CommandLine.arguments.dropFirst().map { $0 })   // the full CLI words the failure
        }
        defer { connection.close() }
        var status: Int32 = 0
        for url in request.urls {
            let code = await open(url, on: connection)
            if status == 0 { status = code }
        }
        return status
    }

    private func open(_ url: String, on connection: DBusConnection) async -> Int32 {
        let arguments: [DBusValue] = [.string(url), .vardict(options)]
        do {
            if request.noWait {
                try connection.callNoReply(Self.brokerName, path: Self.brokerPath, interface: Self.brokerInterface, method: "OpenURL", arguments)
                print("\(url): sent")
                return 0
            }
            // The broker may have to launch the app first: its 25 s default plus 15 s, as BrokerClient.
            let reply = try await connection.call(Self.brokerName, path: Self.brokerPath, interface: Self.brokerInterface, method: "OpenURL", arguments, timeout: .seconds(40))
            guard reply.count == 3, let handled = reply[0].boolValue, let bundleID = reply[1].stringValue else {
                writeError("courier open: \(url): the broker answered OpenURL with an unexpected signature")
                return ExitStatus.otherError
            }
            if request.dryRun {
                let state = reply[2].vardictValue?["state"]?.stringValue ?? "?"
                print("\(url): would open in \(bundleID) (\(state))")
                return 0
            }
            if !handled { writeError("courier open: \(url): \(bundleID) declined it") }
            return handled ? 0 : ExitStatus.declined
        } catch let error as DBusError {
            let status = ExitStatus.forError(named: error.name)
            if status == ExitStatus.brokerUnavailable {
                return FullCLI.run(request.arguments(for: url))   // it starts courierd, then asks again
            }
            if status == ExitStatus.noHandler, request.bundleID == nil, !request.noFallback, !request.desktopEntry, !request.dryRun {
                return FullCLI.run(request.arguments(for: url))   // hands the URL to gio open / xdg-open
            }
            writeError("courier open: \(url): \(error.message)")
            return status
        } catch {
            writeError("courier open: \(url): \(error)")
            return ExitStatus.otherError
        }
    }

    /// The `a{sv}` options, as `OpenOptions.dictionary` builds them.
    private var options: [String: DBusValue] {
        var options: [String: DBusValue] = [:]
        if let bundleID = request.bundleID { options["bundle-id"] = .string(bundleID) }
        if request.background { options["background"] = .boolean(true) }
        let token = request.activationToken ?? environment("XDG_ACTIVATION_TOKEN") ?? (request.desktopEntry ? environment("DESKTOP_STARTUP_ID") : nil)
        if let token { options["activation-token"] = .string(token) }
        if request.dryRun { options["dry-run"] = .boolean(true) }
        return options
    }
}

/// An environment variable, nil when unset.
func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
