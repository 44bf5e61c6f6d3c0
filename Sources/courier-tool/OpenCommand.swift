import ArgumentParser
import CourierTools
import CourierNames
import DBus
import CourierProtocol
import Foundation

/// `courier open URL-or-FILE…`: the shell's `openURL`, and macOS's `open FILE`.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open URLs in the app that owns them, and files in the app that handles their type, launching it when needed.",
        discussion: """
            Each URL goes to the Courier broker as given (quote it in the shell); an IRI (characters \
            outside ASCII, e.g. todolist://www.acme.com?Café) is mapped to its URI (RFC 3987), which the app \
            receives. The answer is the app's own: handled or declined. A URL no Courier app owns goes to \
            the desktop's handler (gio open, else xdg-open) unless --no-fallback, as the URI, and only when \
            a browser reads the same host, port and path in it as Courier (else it is refused with the \
            reason); --dry-run shows that hand-off.

            An argument without a scheme, or a file: URL, is a FILE: it is handed to the broker as an open \
            descriptor, placed in the Documents/Inbox of the app that handles its type (by its name and \
            content; -a picks the app), and the app is told to open it. Without --wait the command returns \
            once the file is in the Inbox and the app has been asked. A file no Courier app handles goes to \
            the desktop's handler unless --no-fallback. Write ./name for a file whose name looks like \
            scheme:…. \(CourierExitCode.openHelp) For FILEs also the statuses of courier drop: \
            \(CourierExitCode.list(CourierExitCode.dropRefusals)).
            """
    )

    @Argument(help: ArgumentHelp("The URLs and files to open, in order.", valueName: "url-or-file"))
    var items: [String]

    @Option(name: [.customShort("b"), .customLong("bundle-id")], help: "Open in this app instead of the scheme's owner.")
    var bundleID: String?

    @Option(name: [.customShort("a"), .customLong("app")], help: ArgumentHelp("Open in this app: a bundle id or an app's name.", valueName: "bundle-id-or-name"))
    var app: String?

    @Flag(name: [.customShort("W"), .customLong("wait")], help: "For files: wait until the app has handled them (URLs always wait, unless --no-wait).")
    var wait = false

    @Flag(name: .long, help: "Ask the app not to come to the foreground.")
    var background = false

    @Option(name: .long, help: "Extra data for the app, as JSON (an object becomes a{sv}).")
    var annotation: String?

    @Option(name: .long, help: "An activation token for the app's window (default: XDG_ACTIVATION_TOKEN).")
    var activationToken: String?

    @Flag(name: .long, help: "Send and exit without waiting for the app's answer.")
    var noWait = false

    @Flag(name: .long, help: "After the app's answer, wait until the app has ended (macOS open -W).")
    var waitExit = false

    @Flag(name: [.customShort("F"), .customLong("fresh")], help: "When this launches the app, do not hand it the state it preserved.")
    var fresh = false

    @Option(name: .customLong("args"), parsing: .remaining, help: ArgumentHelp("Everything after --args goes to the app: after its CourierLaunchArguments when this launches it, else to the running app, which may ignore them (said so).", valueName: "arg"))
    var arguments: [String] = []

    @Flag(name: .long, help: "Validate and resolve only: show which app would open each URL or file; launch and deliver nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Print one JSON object per URL or file.")
    var json = false

    @Flag(name: .long, help: "Fail with NoHandler instead of handing a URL or file no Courier app handles to the desktop (gio open, xdg-open).")
    var noFallback = false

    @Flag(name: .long, help: ArgumentHelp("Set by Courier's desktop entries: the desktop started this command, so a URL is never handed back to it.", visibility: .private))
    var desktopEntry = false

    func validate() throws {
        if app != nil && bundleID != nil { throw ValidationError("give either --app or --bundle-id, not both") }
        if wait && noWait { throw ValidationError("--wait and --no-wait contradict each other") }
        if waitExit && noWait { throw ValidationError("--wait-exit and --no-wait contradict each other") }
        if waitExit && dryRun { throw ValidationError("--wait-exit and --dry-run contradict each other: a dry run starts nothing") }
    }

    func run() async throws {
        var options = OpenRequestOptions(bundleID: bundleID, background: background, dryRun: dryRun)
        options.arguments = arguments.isEmpty ? nil : arguments
        options.fresh = fresh
        let environment = ProcessInfo.processInfo.environment
        options.activationToken = activationToken ?? environment["XDG_ACTIVATION_TOKEN"] ?? (desktopEntry ? environment["DESKTOP_STARTUP_ID"] : nil)
        if let annotation {
            do {
                options.annotation = try JSONAnnotation.value(from: annotation)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if let app {
            do {
                options.bundleID = try await AppChoice.bundleID(for: app)
            } catch {
                FileHandle.standardError.write(Data("courier open: \(error.message)\n".utf8))
                throw CourierExitCode(error).exitCode
            }
        }
        var status: Int32 = 0
        for item in items {
            let code: Int32
            switch OpenTarget(item) {
            case .url(let url): code = await open(url, options: options).rawValue
            case .file(let path): code = await openFile(path, options: options)
            }
            if status == 0 { status = code }
        }
        if status != 0 { throw ExitCode(status) }
    }

    private func open(_ url: String, options: OpenRequestOptions) async -> CourierExitCode {
        do {
            if noWait {
                try await BrokerConnection.withBroker { client throws(CourierError) in try client.openWithoutReply(url, options: options) }
                report(url, handled: true, bundleID: "", reply: [:], note: "sent")
                return .handled
            }
            // -F/--fresh applies to a launch: an app already up keeps its state, and the user is told.
            var runningBefore = false
            if options.fresh && !dryRun {
                var probe = options
                probe.dryRun = true
                let state = try? await BrokerConnection.withBroker { client throws(CourierError) in try await client.open(url, options: probe) }.reply[CourierKey.state]
                runningBefore = state.map { $0.hasPrefix("active") || $0.hasPrefix("idle") } ?? false
            }
            let (result, client) = try await BrokerConnection.withBroker { client throws(CourierError) in (try await client.open(url, options: options), client) }
            if dryRun {
                report(url, handled: true, bundleID: result.bundleID, reply: result.reply, note: "would open in \(result.bundleID) (\(result.reply[CourierKey.state] ?? "?"))")
                return .handled
            }
            report(url, handled: result.handled, bundleID: result.bundleID, reply: result.reply, note: nil)
            if options.arguments != nil, result.reply[CourierKey.argumentsAccepted] == false {
                FileHandle.standardError.write(Data("courier open: \(url): \(result.bundleID) was already running and ignored the arguments given with --args; `courier restart \(result.bundleID) --args …` launches it with them\n".utf8))
            }
            if runningBefore {
                FileHandle.standardError.write(Data("courier open: \(url): \(result.bundleID) was already running, so -F/--fresh did not apply (it keeps its state); `courier restart \(result.bundleID) -F` starts it without its saved state\n".utf8))
            }
            if waitExit { try await AppExit.wait(for: result.bundleID, client) }
            return result.handled ? .handled : .declined
        } catch {
            if error.code == .noHandler, options.bundleID == nil, !noFallback, !desktopEntry {
                return DesktopFallback.open(url, json: json, dryRun: dryRun)
            }
            if json {
                JSONOutput.print(OpenOutcome(url: url, handled: false, error: JSONError(name: error.dbusName, message: error.message)))
            }
            FileHandle.standardError.write(Data("courier open: \(url): \(error.message)\n".utf8))
            return CourierExitCode(error)
        }
    }

    /// A file: `OpenFiles` with the file's descriptor — into the Inbox of the app for its type (or
    /// the one named), which is asked to open it; the desktop's handler when no Courier app takes it.
    private func openFile(_ path: String, options: OpenRequestOptions) async -> Int32 {
        let fallback = options.bundleID == nil && !noFallback && !desktopEntry
        // A folder is no document (drops refuse it): like macOS `open DIR`, the desktop shows it.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            guard fallback else {
                let message = "\(path) is a folder, not a file: Courier apps open files (without -a, -b or --no-fallback, the desktop shows a folder)"
                if json { JSONOutput.print(OpenOutcome(file: path, handled: false, error: JSONError(name: CourierError.Code.invalidFile.dbusName, message: message))) }
                FileHandle.standardError.write(Data("courier open: \(message)\n".utf8))
                return CourierExitCode.invalidFile.rawValue
            }
            guard !dryRun else {
                if json { JSONOutput.print(OpenOutcome(file: path, dryRun: true, desktop: .bool(true))) } else { print("\(path): a folder; would go to the desktop's handler") }
                return 0
            }
            return DesktopFallback.open(URL(fileURLWithPath: path).absoluteString, json: json).rawValue
        }
        let descriptors: [UnixFD]
        do {
            descriptors = try OpenFilesCall.openFiles([path])
        } catch {
            if json { JSONOutput.print(OpenOutcome(file: path, handled: false, error: JSONError(name: CourierError.Code.invalidFile.dbusName, message: error.message))) }
            FileHandle.standardError.write(Data("courier open: \(error.message)\n".utf8))
            return CourierExitCode.cannotOpen.rawValue
        }
        var dictionary = options.dictionary
        dictionary[CourierKey.bundleID] = nil
        dictionary[CourierKey.wait] = wait
        do {
            let placed = try await BrokerConnection.withBroker { client throws(CourierError) in
                try await OpenFilesCall.call(client, bundleID: options.bundleID ?? "", files: [path], descriptors: descriptors, options: dictionary)
            }
            guard let file = placed.first else { return CourierExitCode.otherError.rawValue }
            if dryRun { return reportDryRun(file, fallback: fallback) }
            if json {
                // Handled is known only when we waited; otherwise the file is in the Inbox and asked for.
                var outcome = file.outcome
                if wait { outcome.handled = true } else { outcome.sent = true }
                outcome.waited = wait
                JSONOutput.print(outcome)
            }
            return 0
        } catch {
            if error.code == .noHandler, fallback, !dryRun {
                return DesktopFallback.open(URL(fileURLWithPath: path).absoluteString, json: json).rawValue
            }
            if json {
                JSONOutput.print(OpenOutcome(file: path, handled: false, error: JSONError(name: error.dbusName, message: error.message)))
            }
            FileHandle.standardError.write(Data("courier open: \(path): \(error.message)\n".utf8))
            return CourierExitCode(dropping: error.code).exitCode.rawValue
        }
    }

    /// What a dry run found for a file: the app, or the desktop, or why neither.
    private func reportDryRun(_ file: OpenFilesCall.Placement, fallback: Bool) -> Int32 {
        var outcome = file.outcome
        outcome.dryRun = true
        let status: CourierExitCode
        let line: String
        if file.accepted {
            status = .handled
            line = "\(file.file): would open in \(file.bundleID) (\(file.type), \(file.typeReason))"
        } else if !file.bundleID.isEmpty {
            status = .notPermitted
            line = "\(file.file): \(file.bundleID) does not open \(file.type) (\(file.typeReason)); it declares no such document type"
        } else if fallback {
            status = .handled
            outcome.desktop = .bool(true)
            line = "\(file.file): no Courier app opens \(file.type) (\(file.typeReason)); would go to the desktop's handler"
        } else {
            status = .noHandler
            line = "\(file.file): no Courier app opens \(file.type) (\(file.typeReason))"
        }
        if json {
            JSONOutput.print(outcome)
        } else if status == .handled {
            print(line)
        } else {
            FileHandle.standardError.write(Data("courier open: \(line)\n".utf8))
        }
        return status.rawValue
    }

    private func report(_ url: String, handled: Bool, bundleID: String, reply: [String: DBusValue], note: String?) {
        if json {
            JSONOutput.print(OpenOutcome(url: url, bundleID: bundleID, handled: handled, dryRun: dryRun ? true : nil, reply: dryRun ? JSONValue.fields(reply) : JSONValue.object(reply)))
        } else if let note {
            print("\(url): \(note)")
        } else if !handled {
            FileHandle.standardError.write(Data("courier open: \(url): \(bundleID) declined it\n".utf8))
        }
    }
}
