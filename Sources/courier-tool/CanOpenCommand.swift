import ArgumentParser
import CourierTools
import CourierNames
import Foundation

/// `courier can-open URL`: is there an app for it (and which, with `--handlers`).
struct CanOpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "can-open",
        abstract: "Tell whether some app can open a URL (exit 0 yes, 3 no).",
        discussion: CourierExitCode.openHelp
    )

    @Argument(help: "The URL to ask about.", completion: .custom(RegisteredNames.urls))
    var url: String

    @Flag(name: .long, help: "Print the candidate apps, the chosen one first.")
    var handlers = false

    func run() async throws {
        do {
            if handlers {
                let ids = try await BrokerConnection.withBroker { client throws(CourierError) in try await client.handlers(for: url) }
                ids.forEach { print($0) }
                if ids.isEmpty { throw CourierExitCode.noHandler.exitCode }
                return
            }
            let yes = try await BrokerConnection.withBroker { client throws(CourierError) in try await client.canOpen(url) }
            print(yes ? "yes" : "no")
            if !yes { throw CourierExitCode.noHandler.exitCode }
        } catch let error as CourierError {
            throw error.reported("courier can-open: \(url)")
        }
    }
}
