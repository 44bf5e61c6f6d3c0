import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// `courier open` for the command lines `OpenCommandLine` accepts: one `Broker1.OpenURL` per URL
/// on one session-bus connection (`BrokerCall`), with the full CLI's output and exit statuses
/// (`OpenCommand`, `CourierExitCode`). What only the full CLI can do — start `courierd` when no
/// broker runs, hand a URL no Courier app owns to the desktop — is done by running it for that URL.
struct OpenRunner {
    let request: OpenCommandLine

    init(_ request: OpenCommandLine) {
        self.request = request
    }

    /// The exit status: 0 when every URL was handled, else the first failure's (`CourierExitCode`).
    func run() -> Int32 {
        // No session bus, or one this static executable cannot reach (see StaticLinkStubs.swift):
        // the full CLI connects its own way, or words the failure.
        guard let address = environment("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty, let call = try? BrokerCall(address: address) else {
            FullCLI.exec(Array(CommandLine.arguments.dropFirst()))
        }
        var status: Int32 = 0
        for url in request.urls {
            let code = open(url, with: call)
            if status == 0 { status = code }
        }
        return status
    }

    private func open(_ url: String, with call: BrokerCall) -> Int32 {
        do {
            // The broker may have to launch the app first: its 25 s default plus 15 s, as BrokerClient.
            guard let answer = try call.openURL(url, options: options, waitForReply: !request.noWait, timeoutMilliseconds: 40_000) else {
                print("\(url): sent")
                return 0
            }
            if request.dryRun {
                print("\(url): would open in \(answer.bundleID) (\(answer.state ?? "?"))")
                return 0
            }
            if !answer.handled { writeError("courier open: \(url): \(answer.bundleID) declined it") }
            return answer.handled ? 0 : CourierExitCode.declined.rawValue
        } catch {
            let status = CourierExitCode(CourierErrorCode(classifying: error.name))
            if status == .brokerUnavailable {
                return FullCLI.run(request.arguments(for: url))   // it starts courierd, then asks again
            }
            if status == .noHandler, request.bundleID == nil, !request.noFallback, !request.desktopEntry {
                // Hands the URL to gio open / xdg-open (a dry run shows that it would): the full CLI
                // maps an IRI and checks the URL against a browser's reading first.
                return FullCLI.run(request.arguments(for: url))
            }
            writeError("courier open: \(url): \(error.message)")
            return status.rawValue
        }
    }

    /// The `a{sv}` options, as `OpenOptions.dictionary` builds them.
    private var options: [(String, BrokerCall.Option)] {
        var options: [(String, BrokerCall.Option)] = []
        if let bundleID = request.bundleID { options.append((CourierBusNames.OpenURLKey.bundleID, .string(bundleID))) }
        if request.background { options.append((CourierBusNames.OpenURLKey.background, .boolean(true))) }
        let token = request.activationToken ?? environment("XDG_ACTIVATION_TOKEN") ?? (request.desktopEntry ? environment("DESKTOP_STARTUP_ID") : nil)
        if let token { options.append((CourierBusNames.OpenURLKey.activationToken, .string(token))) }
        if request.dryRun { options.append((CourierBusNames.OpenURLKey.dryRun, .boolean(true))) }
        return options
    }
}

/// An environment variable, nil when unset.
func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
