import ArgumentParser
import CourierTools
import CourierNames
import DBus
import CourierProtocol
import CourierInbox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier drop FILE…`: AirDrop from the shell. The files are handed to the broker as open
/// descriptors (it never opens a path on our behalf), placed in the apps' `Documents/Inbox`, and
/// each app is launched if needed and asked to open its files, in order.
struct DropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Drop files into apps' Inboxes and have the apps open them, launching them when needed.",
        discussion: """
            Without --to, each file goes to the default app for its own type (by its name and \
            content), and each line says where it went: FILE → APP: PATH. If no app accepts some \
            file, those files are listed and nothing is sent. With --to, every file goes to that app \
            and must be of a type it declares; each line is the file's path in its Inbox. Either way \
            the drop is all or nothing. On a terminal a progress bar is shown for large files. \
            With --json, one JSON object.
            """ + "\n\n" + CourierExitCode.dropHelp
    )

    @Argument(help: "The files to drop, in order.")
    var files: [String]

    @Option(name: .customLong("to"), help: "The bundle id of the app to receive them.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String?

    @Flag(name: .long, help: "Print one JSON object instead of paths.")
    var json = false

    func run() async throws {
        let descriptors: [UnixFD]
        do {
            descriptors = try OpenFilesCall.openFiles(files)
        } catch {
            fail(file: error.file, name: CourierError.Code.invalidFile.dbusName, message: error.message)
            throw CourierExitCode.cannotOpen.exitCode
        }
        let showProgress = !json && isatty(STDOUT_FILENO) == 1
        let token = showProgress ? UUID().uuidString : ""
        var options: [String: DBusValue] = [:]
        if let activation = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"] { options[CourierKey.activationToken] = activation }

        do {
            let placed = try await BrokerConnection.withBroker { client throws(CourierError) in
                try await OpenFilesCall.call(client, bundleID: bundleID ?? "", files: files, descriptors: descriptors,
                                             options: options, progressToken: token)
            }
            report(placed)
        } catch {
            // Files no app accepts: say which, from a dry run (the broker's message names them too).
            if error.code == .noHandler, bundleID == nil, let routes = try? await dryRun(descriptors), routes.contains(where: { !$0.accepted }) {
                reportHomeless(routes, error: error)
            } else {
                // The broker's message says what was wrong and what to do; the status says which refusal.
                fail(name: error.dbusName, message: error.message)
            }
            throw CourierExitCode(dropping: error.code).exitCode
        }
    }

    private func dryRun(_ descriptors: [UnixFD]) async throws(CourierError) -> [OpenFilesCall.Placement] {
        try await BrokerConnection.withBroker(autostart: false) { client throws(CourierError) in
            try await OpenFilesCall.call(client, bundleID: "", files: files, descriptors: descriptors, options: [String: DBusValue](CourierKey.dryRun(true)))
        }
    }

    private func report(_ placed: [OpenFilesCall.Placement]) {
        if json {
            JSONOutput.print(DropOutcome(delivered: true, files: placed.map(\.outcome)))
        } else if bundleID != nil {
            placed.forEach { print($0.inboxPath ?? "") }
        } else {
            placed.forEach { print("\($0.file) → \($0.bundleID): \($0.inboxPath ?? "")") }
        }
    }

    /// Each file no app accepts on standard error (and the others' destinations), nothing sent.
    private func reportHomeless(_ routes: [OpenFilesCall.Placement], error: CourierError) {
        let homeless = routes.filter { !$0.accepted }
        if json {
            JSONOutput.print(DropOutcome(delivered: false, files: routes.map(\.outcome),
                                         error: JSONError(name: error.dbusName, message: error.message)))
        }
        for route in homeless {
            FileHandle.standardError.write(Data("courier drop: \(route.file): no app accepts \(route.type) (\(route.typeReason))\n".utf8))
        }
        let accepted = routes.count - homeless.count
        FileHandle.standardError.write(Data("courier drop: nothing was sent\(accepted > 0 ? " (\(accepted) other file(s) had an app)" : ""); drop those files with --to APP, or register an app that declares their type\n".utf8))
    }

    /// The refusal on standard error (and, with `--json`, as the outcome; `file` names the FILE
    /// that could not be opened).
    private func fail(file: String? = nil, name: String, message: String) {
        if json {
            JSONOutput.print(DropOutcome(delivered: false, file: file, error: JSONError(name: name, message: message)))
        }
        FileHandle.standardError.write(Data("courier drop: \(message)\n".utf8))
    }
}
