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

    /// The command, and what it asks of the broker.
    enum Request: String {
        case launch, restart
    }

    /// Asks the broker to launch or restart the app, starting a broker when none runs; a failure is
    /// reported as `courier launch: message` (or `restart`) with its exit status.
    func send(_ request: Request) async throws -> LaunchReply {
        let options = LaunchRequestOptions(arguments: arguments, fresh: fresh)
        do {
            return try await BrokerConnection.withBroker { client throws(CourierError) in
                switch request {
                case .launch: return try await client.launch(bundleID: bundleID, options: options)
                case .restart: return try await client.restart(bundleID: bundleID, options: options)
                }
            }
        } catch {
            throw error.reported("courier \(request.rawValue)")
        }
    }
}
