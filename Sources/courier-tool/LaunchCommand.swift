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
        discussion: "Starts a broker when none runs. Exit status: 0 running (also when it already ran: said so); 3 no such app; 4 launch failed (the message says why; `courier status ID` shows how it ended); 5 it did not check in in time; 7 disabled (courier enable) or not permitted; 9 another error."
    )

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
