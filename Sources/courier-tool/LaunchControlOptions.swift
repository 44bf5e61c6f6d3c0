import ArgumentParser
import CourierProtocol
import CourierTools
import CourierNames
import DBus

/// What `launch` and `restart` take.
struct LaunchControlOptions: ParsableArguments {
    @Argument(help: "The bundle id of the app.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    @Flag(name: [.customShort("F"), .customLong("fresh")], help: "Do not hand the app the state it preserved when it was last terminated.")
    var fresh = false

    @Option(name: .customLong("args"), parsing: .remaining, help: ArgumentHelp("Everything after --args goes to the app, after its CourierLaunchArguments.", valueName: "arg"))
    var arguments: [String] = []

    /// What the broker is asked to launch the app with.
    var options: LaunchRequestOptions { LaunchRequestOptions(arguments: arguments, fresh: fresh) }

    /// Calls the broker (`launch` or `restart`), starting one when none runs; a failure is reported
    /// as `courier COMMAND: message` with its exit status.
    func call(_ command: String, _ body: (BrokerToolClient) async throws(CourierError) -> LaunchReply) async throws -> LaunchReply {
        do {
            return try await BrokerConnection.withBroker { client throws(CourierError) in try await body(client) }
        } catch {
            throw error.reported("courier \(command)")
        }
    }
}
