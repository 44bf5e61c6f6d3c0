import ArgumentParser
import Courier
import CourierBrokerRegistry
import CourierNames
import DBus
import Foundation

/// `courier status`: is a broker running, how was it started, what do its apps do.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running broker and the state of each registered app (never starts a broker)."
    )

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() async throws {
        try await BrokerConnection.withRunningBroker("status", notRunning: {
            if json { JSONOutput.print(StatusOutcome(running: false)) } else { print("no broker is running on this bus (courier open starts one)") }
        }) { client in
            let status = try await client.status()
            let apps = try await client.listApplications()
            if json {
                JSONOutput.print(StatusOutcome(running: true, broker: JSONValue.object(status), applications: apps.map(JSONValue.object)))
                return
            }
            print("broker: pid \(status["pid"]?.uint32Value.map(String.init) ?? "?") as \(status["unique-name"]?.stringValue ?? "?"), started by \(status["started-by"]?.stringValue ?? "?")")
            print("manifests: \((status["manifest-paths"]?.stringArrayValue ?? []).joined(separator: ":"))")
            for app in apps {
                let id = app["bundle-id"]?.stringValue ?? "?"
                let state = app["state"]?.stringValue ?? "?"
                let schemes = (app["schemes"]?.stringArrayValue ?? []).joined(separator: ",")
                let launchable = app["launchable"]?.boolValue == true ? "" : " (not launchable)"
                print("\(id)\t\(state)\t\(schemes)\(launchable)\(BrokerRegistry.squat(app))")
            }
        }
    }
}
