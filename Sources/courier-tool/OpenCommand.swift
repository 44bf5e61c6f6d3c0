import ArgumentParser
import Courier
import DBus
import Foundation

/// `courier open URL…`: the shell's `openURL`.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open URLs in the app that owns them, launching it when needed.",
        discussion: """
            Each URL goes to the Courier broker exactly as given (quote it in the shell). The answer is the \
            app's own: handled or declined. A URL no Courier app owns goes to the desktop's handler \
            (gio open, else xdg-open) unless --no-fallback. \(OpenExitCode.help)
            """
    )

    @Argument(help: "The URLs to open, in order.")
    var urls: [String]

    @Option(name: [.customShort("b"), .customLong("bundle-id")], help: "Open in this app instead of the scheme's owner.")
    var bundleID: String?

    @Flag(name: .long, help: "Ask the app not to come to the foreground.")
    var background = false

    @Option(name: .long, help: "Extra data for the app, as JSON (an object becomes a{sv}).")
    var annotation: String?

    @Option(name: .long, help: "An activation token for the app's window (default: XDG_ACTIVATION_TOKEN).")
    var activationToken: String?

    @Flag(name: .long, help: "Send and exit without waiting for the app's answer.")
    var noWait = false

    @Flag(name: .long, help: "Validate and resolve only: launch and deliver nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Print one JSON object per URL.")
    var json = false

    @Flag(name: .long, help: "Fail with NoHandler instead of handing a URL no Courier app owns to the desktop (gio open, xdg-open).")
    var noFallback = false

    @Flag(name: .long, help: "Set by Courier's desktop entries: the desktop started this command, so a URL is never handed back to it.")
    var desktopEntry = false

    func run() async throws {
        var options = OpenOptions(bundleID: bundleID, background: background, dryRun: dryRun)
        let environment = ProcessInfo.processInfo.environment
        options.activationToken = activationToken ?? environment["XDG_ACTIVATION_TOKEN"] ?? (desktopEntry ? environment["DESKTOP_STARTUP_ID"] : nil)
        if let annotation {
            do {
                options.annotation = try JSONAnnotation.value(from: annotation)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        var status = OpenExitCode.handled
        for url in urls {
            let code = await open(url, options: options)
            if status == .handled { status = code }
        }
        if status != .handled { throw status.exitCode }
    }

    private func open(_ url: String, options: OpenOptions) async -> OpenExitCode {
        do {
            if noWait {
                try await BrokerConnection.withBroker { client throws(CourierError) in try client.openWithoutReply(url, options: options) }
                report(url, handled: true, bundleID: "", reply: [:], note: "sent")
                return .handled
            }
            let result = try await BrokerConnection.withBroker { client throws(CourierError) in try await client.open(url, options: options) }
            if dryRun {
                report(url, handled: true, bundleID: result.bundleID, reply: result.reply, note: "would open in \(result.bundleID) (\(result.reply["state"]?.stringValue ?? "?"))")
                return .handled
            }
            report(url, handled: result.handled, bundleID: result.bundleID, reply: result.reply, note: nil)
            return result.handled ? .handled : .declined
        } catch {
            if error.code == .noHandler, bundleID == nil, !noFallback, !desktopEntry, !dryRun {
                return DesktopFallback.open(url, json: json)
            }
            if json {
                printJSON(["url": url, "handled": false, "error": ["name": error.dbusName ?? CourierError.dbusNamePrefix + error.code.rawValue, "message": error.message]])
            }
            FileHandle.standardError.write(Data("courier open: \(url): \(error.message)\n".utf8))
            return OpenExitCode(error)
        }
    }

    private func report(_ url: String, handled: Bool, bundleID: String, reply: [String: DBusValue], note: String?) {
        if json {
            var object: [String: Any] = ["url": url, "handled": handled, "bundle_id": bundleID, "reply": reply.mapValues(Self.jsonObject)]
            if dryRun { object["dry_run"] = true }
            printJSON(object)
        } else if let note {
            print("\(url): \(note)")
        } else if !handled {
            FileHandle.standardError.write(Data("courier open: \(url): \(bundleID) declined it\n".utf8))
        }
    }

    private func printJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }

    /// A D-Bus value as a JSON-compatible object (variants unwrapped, dictionaries by string key).
    static func jsonObject(_ value: DBusValue) -> Any {
        switch value.unwrapped {
        case .boolean(let v): return v
        case .byte(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int64(let v): return v
        case .uint64(let v): return v
        case .double(let v): return v
        case .string(let v): return v
        case .objectPath(let v): return v.rawValue
        case .signature(let v): return v.rawValue
        case .array(_, let values): return values.map(jsonObject)
        case .dictionary(_, _, let entries):
            var out: [String: Any] = [:]
            for entry in entries { out["\(entry.key.unwrapped.stringValue ?? entry.key.description)"] = jsonObject(entry.value) }
            return out
        case .structure(let fields): return fields.map(jsonObject)
        default: return value.description
        }
    }
}
