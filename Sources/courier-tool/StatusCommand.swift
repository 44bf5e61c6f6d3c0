import ArgumentParser
import Courier
import CourierTools
import CourierNames
import DBus
import CourierProtocol
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
                JSONOutput.print(StatusOutcome(running: true, broker: JSONValue.fields(status), applications: apps.map(JSONValue.fields)))
                return
            }
            print("broker: pid \(status[CourierKey.pid].map(String.init) ?? "?") as \(status[CourierKey.uniqueName] ?? "?"), started by \(status[CourierKey.startedBy] ?? "?")")
            print("manifests: \((status[CourierKey.manifestPaths] ?? []).joined(separator: ":"))")
            for app in apps {
                let id = app[CourierKey.bundleID] ?? "?"
                let state = app[CourierKey.state] ?? "?"
                let schemes = (app[CourierKey.schemes] ?? []).joined(separator: ",")
                let launchable = app[CourierKey.launchable] == true ? "" : " (not launchable)"
                print("\(id)\t\(state)\t\(schemes)\(launchable)\(RegistryQueries.squat(app))")
            }
        }
    }
}
