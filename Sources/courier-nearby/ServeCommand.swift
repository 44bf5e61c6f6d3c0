import ArgumentParser
import CourierNearby
import CourierTools
import Dispatch
import Foundation
import Logging
import NIOCore

/// `courier nearby serve FILE…`: share via link — the files over the LocalSend download API, with
/// a page a browser opens, behind a generated PIN, until the time limit or Ctrl-C.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Share files via link: a device without LocalSend opens the page in its browser and downloads them.",
        discussion: """
            Prints the address to open and a PIN of \(NearbyPIN.generatedLength) digits (\(NearbyPIN.budget) wrong PINs \
            from anyone and no PIN is accepted any more). Serves on the address of the interface \
            that holds the default route (the local network, not a VPN or a container bridge) unless \
            --bind names others, over HTTPS with this device's self-signed certificate (the browser \
            warns once), until --time-limit or Ctrl-C; then nothing is served. LocalSend clients \
            that use the download API (prepare-download, download) work too. See docs/share.md.
            """
    )

    @Argument(help: "The files to share (each is opened now; one changed later is no longer served).")
    var files: [String]

    @Option(name: .customLong("bind"), help: "An address to serve on (repeatable; default: the address of the interface with the default route).")
    var addresses: [String] = []

    @Option(help: "The TCP port (0: any free port).")
    var port: Int = NearbyProtocol.defaultPort

    @Option(help: "Seconds until the share ends.")
    var timeLimit: Int = 600

    @Option(help: "The name the page and LocalSend clients show (default: \"Courier on HOSTNAME\").")
    var alias: String?

    @Flag(help: "Serve plain HTTP too (no certificate warning). Off by default: without TLS anyone on the network can read the PIN and the files, and change the page.")
    var plainHttp = false

    /// The share sheet's: the share ends when the process that started it does, also when that
    /// one is killed rather than interrupted at a terminal (which would end the whole group); the
    /// address and the PIN go to standard error, the sheet's standard output being its outcome
    /// (one JSON object with `courier share --json`).
    @Flag(help: .hidden)
    var fromShareSheet = false

    @Flag(help: "Print the addresses, the PIN and the end as one JSON object (on standard output) once serving.")
    var json = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard (1...86400).contains(timeLimit) else { throw ValidationError("--time-limit must be 1…86400 seconds") }
    }

    func run() async throws {
        NearbyContext.bootstrapLogging()
        let logger = Logger(label: "courier.nearby")
        let context = NearbyContext()
        let identity = try context.identity()
        let addresses: [String]
        if self.addresses.isEmpty {
            do throws(NearbyError) { addresses = [try LinkShareServer.defaultAddress()] } catch { throw NearbyCommandError("courier nearby serve: \(error.message)") }
        } else {
            addresses = self.addresses
        }
        let notifications = (try? BrokerToolClient.session().connection).map { DesktopNotificationPrompt(connection: $0) }
        let share: LinkShare
        do throws(NearbyError) {
            share = try LinkShare(paths: files, device: context.device(alias: alias, identity: identity, port: port, plainHTTP: plainHttp)) { message in
                logger.critical("link: \(message)")
                guard let notifications else { return }
                Task { await notifications.tell("Courier stopped accepting PINs for the link", message) }
            }
        } catch {
            throw NearbyCommandError("courier nearby serve: \(error.message)")
        }
        var options = LinkShareServer.Options()
        options.addresses = addresses
        options.port = port
        options.plainHTTP = plainHttp
        let server: LinkShareServer
        do {
            server = try await LinkShareServer.bind(share: share, identity: identity, options: options, logger: logger)
        } catch let error as IOError where error.errnoCode == EADDRNOTAVAIL {
            throw NearbyCommandError("courier nearby serve: cannot listen on \(addresses.joined(separator: ", ")): no interface of this computer has that address; give one it has (ip address) with --bind")
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw NearbyCommandError("courier nearby serve: port \(port) is taken (a LocalSend receiver, or another share?); choose another --port (0: any free one)")
        } catch {
            throw NearbyCommandError("courier nearby serve: cannot listen on \(addresses.joined(separator: ", ")) port \(port): \(error)")
        }
        let scheme = plainHttp ? "http" : "https"
        let urls = addresses.map { address in "\(scheme)://\(address.contains(":") ? "[\(address)]" : address):\(server.port)/" }
        let end = Date().addingTimeInterval(TimeInterval(timeLimit))
        for address in addresses where ["0.0.0.0", "::"].contains(address) {
            logger.warning("link: \(address) serves on every interface (VPNs and container bridges too); name the local network's address with --bind")
        }
        if plainHttp {
            logger.warning("link: plain HTTP is on: anyone on the network can read the PIN and the files, and change the page")
        }
        if json {
            let object: [String: Any] = ["urls": urls, "pin": share.pin, "fingerprint": identity.fingerprint, "files": share.items.map(\.path),
                                         "ends": ISO8601DateFormatter().string(from: end)]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            say(String(decoding: data, as: UTF8.self))
        } else {
            say("Open \(urls.joined(separator: " or ")) on the other device; the PIN is \(share.pin).")
            if !plainHttp {
                say("The browser warns about the certificate (self-signed); its SHA-256 fingerprint is \(identity.fingerprint).")
            }
            say("Serving \(share.items.count) file\(share.items.count == 1 ? "" : "s") for \(timeLimit) s (Ctrl-C ends the share sooner).")
        }
        logger.notice("link: serving \(share.items.count) file(s) on \(urls.joined(separator: ", ")) until \(end)")

        let serving = Task { try await server.serve() }
        let ended = Task {
            try? await Task.sleep(for: .seconds(timeLimit))
            serving.cancel()
        }
        let parent = getppid()
        let orphaned = Task {
            while fromShareSheet, !Task.isCancelled, getppid() == parent { try? await Task.sleep(for: .milliseconds(250)) }
            if fromShareSheet, !Task.isCancelled { serving.cancel() }
        }
        let handlers = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { serving.cancel() }
            source.resume()
            return source
        }
        let outcome = await serving.result
        ended.cancel()
        orphaned.cancel()
        handlers.forEach { $0.cancel() }
        // Ended by the time limit, a signal or the sheet's end: the task was cancelled. Anything
        // else ending it early is a failure, said as such.
        if !serving.isCancelled, case .failure(let error) = outcome {
            throw NearbyCommandError("courier nearby serve: the share stopped early: \(error); nothing is served any more")
        }
        logger.notice("link: the share has ended; nothing is served any more")
    }

    /// A line on standard output (standard error for the share sheet), written at once: a script
    /// reads it while the share runs.
    private func say(_ line: String) {
        (fromShareSheet ? FileHandle.standardError : FileHandle.standardOutput).write(Data((line + "\n").utf8))
    }
}
