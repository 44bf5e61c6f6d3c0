import ArgumentParser
import Courier
import CourierShareOptions
import CourierManifest
import CourierNames
import Foundation

/// `courier share FILE|URL … [--text TEXT …]`: the share sheet from the shell (docs/share.md). The
/// broker lists the activities that fit every item; on a terminal the person chooses; otherwise
/// `--list` shows them and `--activity ID` runs one.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share files, URLs and text with another app, the clipboard, a folder or a nearby device.",
        discussion: """
            The activities offered are those that fit every item: Open in APP (apps whose document \
            types accept the items, or that claim a URL's scheme), the apps' own share activities, \
            Copy (text and URLs, where wl-copy or xclip is there), Save to… (a folder), Send to a \
            nearby device (courier nearby send) and Share via link (courier nearby serve: a page \
            a browser opens, behind a PIN). On a terminal the activities are listed and you \
            choose; elsewhere use --list to see them and --activity ID to run one. --exclude KIND \
            (\(ShareActivity.kinds.joined(separator: ", "))) or an activity id leaves activities out.
            """ + "\n\n" + CourierExitCode.shareHelp
    )

    @Argument(help: "Files and URLs to share, in order.")
    var items: [String] = []

    @Option(name: .customLong("text"), help: "Text to share (repeatable; after the files and URLs).")
    var texts: [String] = []

    @Flag(name: .long, help: "List the activities that fit, without choosing.")
    var list = false

    @OptionGroup var sharing: ShareSheetOptions

    @Option(name: .customLong("to-device"), help: "The device for a nearby send: ALIAS, FINGERPRINT or IP[:PORT].")
    var device: String?

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard !items.isEmpty || !texts.isEmpty else { throw ValidationError("nothing to share: give FILEs, URLs or --text TEXT") }
        guard !(list && sharing.activity != nil) else { throw ValidationError("--list and --activity do not go together: list first, then run one") }
    }

    func run() async throws {
        var shared: [ShareItem] = []
        for argument in items {
            if FileManager.default.fileExists(atPath: argument) {
                shared.append(.file(path: URL(fileURLWithPath: argument).path))
            } else if argument.contains(":"), Registry.scheme(fromURLOrScheme: argument) != nil {
                shared.append(.url(argument))
            } else {
                fail(CourierError(.invalidFile, "\(argument) is neither an existing file nor a URL (SCHEME:…); nothing was shared"))
                throw CourierExitCode.cannotOpen.exitCode
            }
        }
        shared += texts.map { .text($0) }
        do {
            try await BrokerConnection.withBroker { client throws(CourierError) in
                // The sheet is the app library's, on a connection of its own to the bus the broker is on.
                let sheet = ShareSheet(items: shared, excluding: sharing.excluded, broker: try BrokerClient.session())
                if list {
                    report(try await sheet.activities())
                } else if let activity = sharing.activity {
                    report(try await sheet.perform(activityID: activity, folder: sharing.folder, device: device))
                } else {
                    report(try await sheet.run(chooser: try await sheet.personalChooser()))
                }
            }
        } catch {
            fail(error)
            throw CourierExitCode(dropping: error.code).exitCode
        }
    }

    private func report(_ activities: [ShareActivity]) {
        if json {
            JSONOutput.print(ShareListing(activities: activities.map(ShareActivityRow.init)))
        } else {
            for activity in activities { print("\(activity.id)\t\(activity.title)") }
        }
    }

    private func report(_ outcome: ShareOutcome) {
        if json {
            JSONOutput.print(ShareResult(shared: true, activity: ShareActivityRow(outcome.activity), delivered: outcome.delivered))
        } else {
            for place in outcome.delivered { print(place) }
        }
    }

    private func fail(_ error: CourierError) {
        if json { JSONOutput.print(ShareResult(shared: false, error: JSONError(name: error.dbusName, message: error.message))) }
        FileHandle.standardError.write(Data("courier share: \(error.message)\n".utf8))
    }
}

/// One activity in `courier share --json`.
struct ShareActivityRow: Encodable {
    var id: String
    var title: String
    var kind: String
    var bundleID: String?
    var activity: String?

    init(_ activity: ShareActivity) {
        (id, title, kind, bundleID, self.activity) = (activity.id, activity.title, activity.kind, activity.bundleID, activity.activityName)
    }

    enum CodingKeys: String, CodingKey {
        case id, title, kind, bundleID = "bundle_id", activity
    }
}

/// `courier share --list --json`.
struct ShareListing: Encodable {
    var activities: [ShareActivityRow]
}

/// `courier share --json` (without `--list`): what ran and where the items went, or the refusal.
struct ShareResult: Encodable {
    var shared: Bool
    var activity: ShareActivityRow?
    var delivered: [String]?
    var error: JSONError?
}
