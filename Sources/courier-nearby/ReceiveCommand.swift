import ArgumentParser
import CourierTools
import CourierInbox
import CourierNearby
import Foundation
import Logging
import NIOCore

/// `courier nearby receive`: listen for LocalSend senders until interrupted, and deliver what they
/// send into app Inboxes through the broker.
struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive files from nearby devices into app Inboxes (until interrupted).",
        discussion: """
            Consent: trusted senders (courier nearby trust) are let in; with --pin, senders that give \
            the PIN; anyone else is put to you — on this terminal when it is one, else as a desktop \
            notification with Accept and Decline — and refused when nobody can be asked. \
            Each file goes to --to, else to the default app for its type; a file no app accepts is \
            refused before it is sent. A text message (a link or a note) is always put to you, \
            even from a trusted or PIN sender: an accepted link is opened through Courier's router, \
            an accepted text printed on standard output. One log line per session on standard error.
            """
    )

    @Option(name: .customLong("to"), help: "The bundle id of the app to receive every file (default: by each file's type).")
    var bundleID: String?

    @Option(help: "PIN mode: senders that give this PIN are let in without asking (after \(NearbyPIN.budget) wrong PINs from anyone, none until restarted).")
    var pin: String?

    @Flag(help: "PIN mode with a PIN of \(NearbyPIN.generatedLength) random digits, printed at start.")
    var generatePin = false

    @Flag(help: "Let in only trusted senders (and --pin senders): never ask.")
    var trustedOnly = false

    @Option(help: "The TCP (HTTPS) and UDP (multicast) port.")
    var port: Int = NearbyProtocol.defaultPort

    @Option(help: "The address to listen on, and to announce from (default: every interface).")
    var bind: String = "0.0.0.0"

    @Option(help: "The name other devices show (default: \"Courier on HOSTNAME\").")
    var alias: String?

    @Flag(help: "Serve plain HTTP too, and announce \"protocol\": \"http\", for peers without HTTPS. Off by default: without TLS nothing sent is private on the network (PINs included) and no fingerprint is proven.")
    var plainHttp = false

    @Flag(help: "Do not announce this device or answer discovery (senders must know the address).")
    var noDiscovery = false

    @Option(help: "Seconds a silent connection is kept open.")
    var idleTimeout: Int = 60

    @Option(help: "Seconds the user has to answer a prompt (terminal or notification) before the session is declined.")
    var askTimeout: Int = 45

    func validate() throws {
        if let pin, let problem = NearbyPIN.problem(with: pin) { throw ValidationError("--pin \(problem)") }
        if pin != nil && generatePin { throw ValidationError("give --pin or --generate-pin, not both") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard (1...3600).contains(askTimeout) else { throw ValidationError("--ask-timeout must be 1…3600 seconds") }
    }

    func run() async throws {
        NearbyContext.bootstrapLogging()
        let logger = Logger(label: "courier.nearby")
        let context = NearbyContext()
        let identity = try context.identity()
        let client = try BrokerToolClient.session()
        // Bus activation starts the broker when it is not running; GetStatus answers either way.
        guard (try? await client.status()) != nil else {
            throw NearbyCommandError("courier nearby receive: the Courier broker is not running and could not be started; start courierd")
        }

        let pin = generatePin ? NearbyPIN.generate() : self.pin
        let asker = await personToAsk()
        let prompt = trustedOnly || pin != nil ? nil : asker
        if asker == nil {
            logger.warning("nearby: no terminal and no notification server to ask: \(trustedOnly || pin != nil ? "" : "only trusted senders get in (or start with --pin), and ")text messages are refused")
        }
        let trustListPath = context.trustListPath
        var configuration = NearbyReceiver.Configuration(
            device: context.device(alias: alias, identity: identity, port: port, plainHTTP: plainHttp),
            pin: pin,
            trustList: { (try? TrustList.load(from: trustListPath)) ?? TrustList() },
            prompt: prompt,
            stagingFolder: context.folders.staging)
        configuration.messagePrompt = asker
        configuration.inboxes = Inbox(containersRoot: context.folders.layout.containersRoot)
        if let pin {
            if generatePin { logger.notice("nearby: the PIN is \(pin)") }
            if let weakness = NearbyPIN.weakness(of: pin) { logger.warning("nearby: \(weakness)") }
            let notifications = (try? BrokerToolClient.session().connection).map { DesktopNotificationPrompt(connection: $0) }
            configuration.onPINBudgetSpent = { message in
                logger.critical("nearby: \(message)")
                guard let notifications else { return }
                Task { await notifications.tell("Courier Nearby stopped accepting PINs", message) }
            }
        }
        let receiver = NearbyReceiver(configuration: configuration, delivery: BrokerDelivery(client: client, bundleID: bundleID, inboxes: configuration.inboxes), logger: logger)
        for path in receiver.sweepStaging() { logger.info("nearby: removed the leftover upload \(path)") }
        var options = NearbyServer.Options()
        options.host = bind
        options.port = port
        options.limits.idleTimeout = .seconds(Int64(idleTimeout))
        options.plainHTTP = plainHttp
        let server: NearbyServer
        do {
            server = try await NearbyServer.bind(device: configuration.device, receiver: receiver, identity: identity, options: options, logger: logger)
        } catch {
            throw NearbyCommandError("courier nearby receive: cannot listen on \(bind):\(port): \(error); is another LocalSend receiver running? Choose another --port")
        }
        configuration.device.port = server.port
        if plainHttp {
            logger.warning("nearby: plain HTTP is on: what senders send without TLS (files, PINs) can be read on the network, and their fingerprints are only declared")
        }
        logger.notice("nearby: receiving as \(configuration.device.alias.debugDescription) on \(plainHttp ? "http" : "https")://\(bind):\(server.port), fingerprint \(identity.fingerprint); consent: \(consentDescription(prompt, pin: pin)); text messages: \(asker.map { "always asked \(Self.where($0))" } ?? "refused (nobody to ask)")")
        let discovery = noDiscovery ? nil : NearbyDiscovery(device: configuration.device, port: server.port,
                                                                   interfaceAddress: bind == "0.0.0.0" ? nil : bind, identity: identity, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.serve() }
            if let discovery {
                group.addTask { try await discovery.announceAndAnswer() }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// The person at this terminal, else the desktop's notification server; nil when neither can
    /// be asked. Text messages are always put to them, whatever the consent mode.
    private func personToAsk() async -> (any ConsentPrompt)? {
        let timeout = Duration.seconds(askTimeout)
        if TerminalPrompt.isAvailable { return TerminalPrompt(timeout: timeout) }
        if let connection = try? BrokerToolClient.session().connection {
            let notifications = DesktopNotificationPrompt(connection: connection, timeout: timeout)
            if await notifications.isAvailable() { return notifications }
        }
        return nil
    }

    private func consentDescription(_ prompt: (any ConsentPrompt)?, pin: String?) -> String {
        var modes = ["trusted senders"]
        if pin != nil { modes.append("PIN") }
        if let prompt { modes.append("asking \(Self.where(prompt))") }
        return modes.joined(separator: ", ")
    }

    private static func `where`(_ prompt: any ConsentPrompt) -> String {
        prompt is TerminalPrompt ? "on this terminal" : "with a desktop notification"
    }
}
