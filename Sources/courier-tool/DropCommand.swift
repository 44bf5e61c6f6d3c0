import ArgumentParser
import Courier
import DBus
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier drop FILE…`: AirDrop from the shell. The files are handed to the broker as open
/// descriptors (it never opens a path on our behalf), placed in the app's `Documents/Inbox`, and
/// the app is launched if needed and asked to open them, in order.
struct DropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Drop files into an app's Inbox and have the app open them, launching it when needed.",
        discussion: """
            Without --to, the files go to the default app for the first file's type (by its name and \
            content). Each file must be of a type the app declares. On a terminal a progress bar is \
            shown for large files. Prints the path of each file in the app's Inbox (with --json, one \
            JSON object).
            """ + "\n\n" + DropExitCode.help
    )

    @Argument(help: "The files to drop, in order.")
    var files: [String]

    @Option(name: .customLong("to"), help: "The bundle id of the app to receive them.")
    var bundleID: String?

    @Flag(name: .long, help: "Print one JSON object instead of paths.")
    var json = false

    func run() async throws {
        // Open everything first: a FILE that cannot be opened fails here, before anything is sent.
        // O_NONBLOCK so that a FIFO given by mistake does not hang us (the broker refuses it).
        var descriptors: [UnixFD] = []
        for file in files {
            let fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                fail(["file": file], name: CourierError.Code.invalidFile.dbusName,
                     message: "cannot open \(file): \(reason); nothing was sent. Check the path and that you may read it.")
                throw DropExitCode.cannotOpen.exitCode
            }
            descriptors.append(UnixFD(taking: fd))
        }
        let names = files.map { URL(fileURLWithPath: $0).lastPathComponent }
        let showProgress = !json && isatty(STDOUT_FILENO) == 1
        let token = showProgress ? UUID().uuidString : ""

        do {
            let urls = try await BrokerConnection.withBroker { client throws(CourierError) in
                try await Self.drop(client, bundleID: bundleID ?? "", descriptors: descriptors, names: names, progressToken: token)
            }
            report(urls)
        } catch {
            // The broker's message says what was wrong and what to do; the status says which refusal.
            fail([:], name: error.dbusName ?? error.code.dbusName, message: error.message)
            throw DropExitCode.exitCode(for: error)
        }
    }

    /// Calls `DropFiles`, drawing the broker's `DropProgress` signals when a token is given.
    static func drop(_ client: BrokerClient, bundleID: String, descriptors: [UnixFD], names: [String],
                     progressToken: String) async throws(CourierError) -> [String] {
        var options: [String: DBusValue] = [:]
        if let activation = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"] { options["activation-token"] = .string(activation) }
        var progressTask: Task<Void, Never>?
        if !progressToken.isEmpty {
            options["progress-token"] = .string(progressToken)
            let rule = MatchRule(path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, member: "DropProgress",
                                 arguments: [0: progressToken])
            if let signals = try? await client.connection.signals(matching: rule) {
                progressTask = Task {
                    var bar = DropProgressBar()
                    for await signal in signals {
                        guard signal.body.count == 3, let copied = signal.body[1].uint64Value, let total = signal.body[2].uint64Value else { continue }
                        bar.draw(copied: copied, total: total)
                        if copied >= total { break }
                    }
                    bar.finish()
                }
            }
        }
        let values: [DBusValue]
        do {
            // Copying gigabytes and launching the app can take a while: no short timeout.
            values = try await client.connection.call(
                CourierBus.brokerName, path: CourierBus.brokerPath, interface: CourierBus.brokerInterface, method: "DropFiles",
                [.string(bundleID), .fds(descriptors), .strings(names), .vardict(options)], timeout: .seconds(3600))
        } catch {
            progressTask?.cancel()
            await progressTask?.value
            throw CourierError(wrapping: error)
        }
        // The bar is cosmetic: the reply is the truth. Stop listening and clear the line.
        progressTask?.cancel()
        await progressTask?.value
        return values.first?.stringArrayValue ?? []
    }

    private func report(_ urls: [String]) {
        let paths = urls.map { URL(string: $0)?.path ?? $0 }
        if json {
            let entries = zip(files, zip(urls, paths)).map { ["file": $0, "inbox_url": $1.0, "path": $1.1] }
            printJSON(["delivered": true, "files": entries])
        } else {
            paths.forEach { print($0) }
        }
    }

    private func fail(_ extra: [String: Any], name: String, message: String) {
        if json {
            printJSON(extra.merging(["delivered": false, "error": ["name": name, "message": message]]) { $1 })
        }
        FileHandle.standardError.write(Data("courier drop: \(message)\n".utf8))
    }

    private func printJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
