import ArgumentParser
import CourierTools
import CourierNames
import CourierProtocol
import DBus
import Foundation

/// `courier launch BUNDLE_ID`: start an app without a URL — macOS `open -a APP`, `launchctl
/// kickstart`, `systemctl --user start` (docs/lifecycle.md). Its delegate learns it was launched
/// for nothing in particular (`launchOptions.url` nil, `launchedByBroker` true).
struct LaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Start an app without a URL; waits until it has checked in. An app already running is left as it is.",
        discussion: "Starts a broker when none runs. " + CourierExitCode.help(Self.statuses)
    )

    /// What `launch` exits with (`restart` too, and more).
    static let statuses: [CourierExitCode.Said] = [
        (.handled, "running (also when it already ran: said so)"), (.unknownApp, "no such app"),
        (.launchFailed, "launch failed (the message says why; `courier status ID` shows how it ended)"),
        (.launchTimeout, "it did not check in in time"), (.notPermitted, "disabled (courier enable) or not permitted"),
        (.otherError, "another error"),
    ]

    @OptionGroup var control: LaunchControlOptions

    func run() async throws {
        let answer = try await control.send(.launch)
        let pid = answer.pid.map { " (pid \($0))" } ?? ""
        if answer.alreadyRunning {
            print("\(control.bundleID) is already running\(pid); nothing was launched\(control.arguments.isEmpty && !control.fresh ? "" : " and --args/--fresh were not applied (courier restart applies them)")")
        } else {
            print("\(control.bundleID) is running\(pid)")
        }
    }
}
