import ArgumentParser
import Courier
import CourierNames
import Foundation

/// `courier quit BUNDLE_ID`: terminate an app with notice, as the broker's policies do — it gets
/// `WillTerminate` (and preserves its state), then SIGTERM, then SIGKILL (docs/lifecycle.md).
struct QuitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quit",
        abstract: "Terminate a running app with notice (it may save its state first); waits until it is gone.",
        discussion: "Requests for the app that arrive meanwhile wait and are delivered to its next launch. Exit status: 0 gone; 9 not running or another error; 8 no broker."
    )

    @Argument(help: "The bundle id of the app, as `courier ps` lists it.")
    var bundleID: String

    @Flag(name: .long, help: "Return once the notice is sent, without waiting for the app to be gone.")
    var noWait = false

    func run() async throws {
        try await BrokerConnection.withRunningBroker("quit", notRunning: {
            FileHandle.standardError.write(Data("courier quit: no broker is running on this bus, so no app is managed\n".utf8))
        }) { client in
            // Subscribed first, so the end cannot be missed between the call and the wait.
            let changes = try await client.stateChanges(of: bundleID)
            try await client.terminate(bundleID: bundleID)
            if noWait { return }
            for await change in changes where change.state == "not-running" || change.state == "launching" { return }
        }
    }
}
