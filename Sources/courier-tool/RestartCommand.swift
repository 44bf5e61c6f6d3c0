import ArgumentParser
import CourierTools
import CourierNames
import CourierProtocol
import DBus

/// `courier restart BUNDLE_ID`: terminate with notice, then launch again (`launchctl kickstart -k`,
/// `systemctl --user restart`). A URL opened meanwhile waits and goes to the new instance.
struct RestartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Terminate an app with notice (it may save its state), then launch it again; waits until the new instance has checked in.",
        discussion: "URLs sent to the app meanwhile wait and are delivered to the new instance. An app that is not running is started. Starts a broker when none runs. " + CourierExitCode.help(LaunchCommand.statuses + [(.notResponding, "the old instance did not end (stuck)")])
    )

    @OptionGroup var control: LaunchControlOptions

    func run() async throws {
        let answer = try await control.send(.restart)
        print("\(control.bundleID) is running again\(answer.pid.map { " (pid \($0))" } ?? "")")
    }
}
