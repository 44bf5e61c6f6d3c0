import CourierTools
import CourierInbox
import CourierNames
import DBus
import CourierProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `Broker1.OpenFiles` from the CLI, shared by `courier open FILE…` and `courier drop`: the files
/// are opened here and handed over as descriptors (the broker never opens a path on our behalf),
/// and the reply says, per file, its type, the app it went to (or none) and where it is now.
///
/// A bus limits the descriptors one message may carry (dbus-daemon's default: 16) and disconnects a
/// client that sends more, so files go in batches of `filesPerMessage`: all but the last with
/// `StageFiles`, the last with `OpenFiles` naming the staged batches — one drop either way. More
/// than the drop limit (`DropLimits.standard`, 256 files) is refused before anything is sent.
enum OpenFilesCall {
    /// Descriptors per message: the smallest limit of the bus implementations (dbus-daemon's default).
    static let filesPerMessage = 16

    /// One file of the reply, with the argument it came from.
    struct Placement {
        /// The path as given on the command line.
        var file: String
        var type: String
        var typeReason: String
        /// The receiving app; empty when no app accepts the file.
        var bundleID: String
        var accepted: Bool
        /// The file in the app's Inbox (absent in a dry run).
        var inboxURL: String?

        var inboxPath: String? { inboxURL.map { URL(string: $0)?.path ?? $0 } }

        /// The file in `--json` output.
        var outcome: OpenOutcome {
            OpenOutcome(file: file, type: type, typeReason: typeReason, bundleID: bundleID, accepted: accepted, inboxURL: inboxURL, path: inboxPath)
        }
    }

    /// A FILE that could not be opened for reading; nothing was sent.
    struct CannotOpen: Error {
        var file: String
        var reason: String

        var message: String { "cannot open \(file): \(reason); nothing was sent. Check the path and that you may read it." }
    }

    /// Opens every file first, so that one that cannot be opened fails before anything is sent.
    /// `O_NONBLOCK`, so that a FIFO given by mistake does not hang us (the broker refuses it).
    static func openFiles(_ paths: [String]) throws(CannotOpen) -> [UnixFD] {
        var descriptors: [UnixFD] = []
        for path in paths {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw CannotOpen(file: path, reason: String(cString: strerror(errno))) }
            descriptors.append(UnixFD(taking: fd))
        }
        return descriptors
    }

    /// The name the broker is offered for a path: its last component.
    static func suggestedName(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    /// Calls `OpenFiles`, drawing the broker's `DropProgress` signals when `progressToken` is not empty.
    static func call(_ client: BrokerToolClient, bundleID: String, files: [String], descriptors: [UnixFD],
                     options: [String: DBusValue], progressToken: String = "") async throws(CourierError) -> [Placement] {
        let limit = DropLimits.standard.maximumFileCount
        guard descriptors.count <= limit else {
            throw CourierError(.limitsExceeded, "\(descriptors.count) files in one drop; a drop takes at most \(limit) files. Nothing was sent: drop them in several goes")
        }
        var options = options
        var progressTask: Task<Void, Never>?
        if !progressToken.isEmpty {
            options[CourierKey.progressToken] = progressToken
            let rule = Broker1.dropProgress.matchRule(path: Broker1.objectPath, arguments: [0: progressToken])
            if let signals = try? await client.connection.signals(matching: rule) {
                progressTask = Task {
                    var bar = DropProgressBar()
                    for await signal in signals {
                        guard Broker1.dropProgress.matches(signal.body), let copied = signal.body[1].uint64Value, let total = signal.body[2].uint64Value else { continue }
                        bar.draw(copied: copied, total: total)
                        if copied >= total { break }
                    }
                    bar.finish()
                }
            }
        }
        let values: [DBusValue]
        do {
            let names = files.map(suggestedName)
            let last = max(0, descriptors.count - 1) / filesPerMessage * filesPerMessage
            var staged: [String] = []
            for start in stride(from: 0, to: last, by: filesPerMessage) {
                let batch = start..<(start + filesPerMessage)
                let reply = try await Broker1.call(
                    Broker1.stageFiles, on: client.connection, [.fds(Array(descriptors[batch])), .strings(Array(names[batch]))])
                staged.append(reply.first?.stringValue ?? "")
            }
            if !staged.isEmpty { options[CourierKey.staged] = staged }
            // Copying gigabytes and launching the app can take a while: no short timeout.
            values = try await Broker1.call(
                Broker1.openFiles, on: client.connection,
                [.string(bundleID), .fds(Array(descriptors[last...])), .strings(Array(names[last...])), .vardict(options)], timeout: .seconds(3600))
        } catch {
            progressTask?.cancel()
            await progressTask?.value
            throw error
        }
        // The bar is cosmetic: the reply is the truth. Stop listening and clear the line.
        progressTask?.cancel()
        await progressTask?.value
        let rows = values[0].arrayValue ?? []
        return zip(files, rows).map { file, row in
            let fields = row.vardictValue ?? [:]
            return Placement(file: file, type: fields[CourierKey.type] ?? "", typeReason: fields[CourierKey.typeReason] ?? "",
                             bundleID: fields[CourierKey.bundleID] ?? "", accepted: fields[CourierKey.accepted] ?? false,
                             inboxURL: fields[CourierKey.inboxURL])
        }
    }

}
