import ArgumentParser
import CourierInbox
import CourierNearby
import Foundation
import Synchronization

/// `courier nearby send FILE…|--text TEXT --to-device ALIAS|IP[:PORT]`: send to any LocalSend receiver.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send files, or a text message, to a nearby device (any LocalSend receiver).",
        discussion: """
            --to-device is an IPv4 address (with :PORT when not 53317; http://IP[:PORT] for a \
            plain-HTTP receiver, unencrypted), or a device's alias or fingerprint as `courier nearby \
            scan` lists it. A device found by discovery must present the certificate whose \
            fingerprint it announced, and is spoken to as it announced (HTTPS or plain HTTP, protocol \
            v2 or v1); a receiver given by address is asked which API it serves (v2, else v1). \
            --text sends a LocalSend text message (a link to open there, or a note): a Courier \
            receiver asks its user and opens a link through its router; other LocalSend apps show \
            it, or take it as a text file. On a terminal a progress bar is shown. Ctrl-C (SIGINT) or SIGTERM stops the upload \
            and asks the receiver to cancel the session. \
            Exit status: 0 sent, 1 refused, failed or interrupted (the receiver's answer is printed).
            """
    )

    @Argument(help: "The files to send.")
    var files: [String] = []

    @Option(help: "Send this text (a link or a note) as a LocalSend text message instead of files; - reads it from standard input.")
    var text: String?

    @Option(name: .customLong("to-device"), help: "ALIAS, FINGERPRINT, IP[:PORT] or http://IP[:PORT] of the receiver.")
    var device: String

    @Option(help: "The receiver's PIN, when it asks for one.")
    var pin: String?

    @Option(help: "Seconds to look for the device by alias.")
    var scanTimeout: Double = 2

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard files.isEmpty != (text == nil) else { throw ValidationError("give FILEs or --text TEXT, not both and not neither") }
    }

    func run() async throws {
        NearbyContext.bootstrapLogging()
        let context = NearbyContext()
        let identity = try context.identity()
        let message = try readText()
        let outgoing = try NearbyUploader.open(files)
        let target = try await resolve()
        let (host, port) = (target.host, target.port)
        let client = NearbyClient(identity: identity, host: host, port: port, expectedFingerprint: target.fingerprint, usesTLS: !target.plainHTTP)
        let uploader: NearbyUploader
        do throws(NearbyError) {
            var api = target.api
            if api == nil { api = try await NearbyUploader.probe(client) }
            uploader = NearbyUploader(client: client, device: context.device(alias: nil, identity: identity, port: NearbyProtocol.defaultPort), api: api ?? .v2)
        } catch {
            if json { printJSON(["sent": false, "device": "\(host):\(port)", "error": ["status": error.status, "message": error.message]]) }
            throw NearbyCommandError("courier nearby send: \(error.message)")
        }
        if let message {
            try await send(message, with: uploader, to: "\(host):\(port)")
            return
        }
        let bar = Mutex(DropProgressBar())
        let drawing = !json && isatty(STDOUT_FILENO) == 1
        let pin = pin
        let sending = Task { () async -> Result<[String], NearbyError> in
            do throws(NearbyError) {
                return .success(try await uploader.send(outgoing, pin: pin) { sent, total in
                    if drawing { bar.withLock { $0.draw(copied: UInt64(sent), total: UInt64(total)) } }
                })
            } catch {
                return .failure(error)
            }
        }
        // An interrupt cancels the sending task: the upload stops, and the receiver is asked to
        // cancel the session (NearbyUploader), instead of the process just ending mid-body.
        let interrupted = Mutex(false)
        let handlers = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                interrupted.withLock { $0 = true }
                sending.cancel()
            }
            source.resume()
            return source
        }
        let outcome = await sending.value
        handlers.forEach { $0.cancel() }
        do throws(NearbyError) {
            let sent: [String]
            switch outcome {
            case .success(let files): sent = files
            case .failure(let error):
                let message = error.message.hasPrefix("interrupted") || !interrupted.withLock({ $0 }) ? error.message : "interrupted: \(error.message)"
                throw NearbyError(error.status, message)
            }
            bar.withLock { $0.finish() }
            if json {
                printJSON(["sent": true, "device": "\(host):\(port)", "files": sent])
            } else {
                for path in sent { print("sent \(path) to \(host):\(port)") }
            }
        } catch {
            bar.withLock { $0.finish() }
            if json { printJSON(["sent": false, "device": "\(host):\(port)", "error": ["status": error.status, "message": error.message]]) }
            throw NearbyCommandError("courier nearby send: \(error.message)")
        }
    }

    /// `--text`, or standard input for `--text -`; nil when files are sent.
    private func readText() throws -> String? {
        guard let text else { return nil }
        guard text == "-" else { return text }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let read = String(data: data, encoding: .utf8) else {
            throw NearbyCommandError("courier nearby send: the text on standard input is not UTF-8; nothing was sent")
        }
        return read
    }

    /// A text message: 204 means the receiver showed it (a Courier receiver: its user accepted),
    /// a token that it took the text as a file.
    private func send(_ text: String, with uploader: NearbyUploader, to device: String) async throws {
        do throws(NearbyError) {
            let delivery = try await uploader.send(text: text, pin: pin)
            if json {
                printJSON(["sent": true, "device": device, "text": delivery.rawValue])
            } else {
                print(delivery == .shown ? "sent the text message to \(device): shown there" : "sent the text to \(device): it took the text as a file")
            }
        } catch {
            if json { printJSON(["sent": false, "device": device, "error": ["status": error.status, "message": error.message]]) }
            throw NearbyCommandError("courier nearby send: \(error.message)")
        }
    }

    /// Where to send: the address and how to speak to it (nil `api`: ask the receiver).
    private struct Target {
        var host: String
        var port: Int
        var fingerprint: String?
        var plainHTTP: Bool
        var api: NearbyProtocol.API?
    }

    /// [http(s)://]IP[:PORT] as given, else the device discovery finds by alias or fingerprint.
    private func resolve() async throws -> Target {
        var address = device
        var plainHTTP = false
        for (scheme, plain) in [("http://", true), ("https://", false)] where address.lowercased().hasPrefix(scheme) {
            address = String(address.dropFirst(scheme.count))
            plainHTTP = plain
        }
        let parts = address.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let isAddress = parts[0].split(separator: ".").count == 4 && parts[0].allSatisfy { $0.isNumber || $0 == "." }
        if isAddress, parts.count <= 2 {
            guard let port = parts.count == 2 ? Int(parts[1]) : NearbyProtocol.defaultPort, (1...65535).contains(port) else {
                throw NearbyCommandError("courier nearby send: \(device.debugDescription) has no valid port; give IP:PORT with PORT 1…65535")
            }
            return Target(host: parts[0], port: port, fingerprint: nil, plainHTTP: plainHTTP, api: nil)
        }
        guard address == device else {
            throw NearbyCommandError("courier nearby send: \(device.debugDescription) is not an IPv4 address; http:// and https:// take IP[:PORT]")
        }
        let found = try await ScanCommand.scan(port: NearbyProtocol.defaultPort, duration: .milliseconds(Int(scanTimeout * 1000)))
        let wanted = device.lowercased()
        let matches = found.filter { $0.device.alias.lowercased() == wanted || $0.device.fingerprint.lowercased().hasPrefix(wanted.filter { $0 != ":" }) && wanted.count >= 8 }
        guard matches.count == 1, let match = matches.first else {
            let seen = found.map { "\($0.device.alias) (\($0.address))" }.joined(separator: ", ")
            throw NearbyCommandError(matches.isEmpty
                ? "courier nearby send: no device named \(device.debugDescription) answered within \(scanTimeout) s (seen: \(seen.isEmpty ? "none" : seen)); give its IP address"
                : "courier nearby send: \(device.debugDescription) matches \(matches.count) devices (\(seen)); give a fingerprint or an IP address")
        }
        return Target(host: match.address, port: match.device.port ?? NearbyProtocol.defaultPort, fingerprint: match.device.fingerprint,
                      plainHTTP: match.device.servesPlainHTTP, api: NearbyProtocol.API(announcedVersion: match.device.version))
    }
}
