import ArgumentParser
import CourierTools
import CourierNames
import CourierProtocol
import Foundation

/// `courier quit BUNDLE_ID`: terminate an app with notice, as the broker's policies do — it gets
/// `WillTerminate` (and preserves its state), then SIGTERM, then SIGKILL (docs/lifecycle.md).
/// `--force`: SIGKILL at once, no notice (`kill -9`, `launchctl kill SIGKILL`), recorded as such.
struct QuitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quit",
        abstract: "Terminate a running app with notice (it may save its state first); waits until it is gone.",
        discussion: "Requests for the app that arrive meanwhile wait and are delivered to its next launch. With --force the app gets no notice and saves nothing: SIGKILL at once; `courier status ID` shows the end as forced. " + CourierExitCode.help([
            (.handled, "gone, or not running"), (.unknownApp, "no such app"),
            (.notPermitted, "the broker holds no process of it to kill (--force)"), (.brokerUnavailable, "no broker"),
            (.otherError, "another error"), (.notResponding, "not gone within --timeout (the app is stuck)"),
        ])
    )

    @Flag(name: .long, help: "Kill the app with SIGKILL at once, without notice (it saves nothing).")
    var force = false

    @Argument(help: "The bundle id of the app, as `courier ps` lists it.", completion: .custom(RegisteredNames.bundleIdentifiers))
    var bundleID: String

    @Flag(name: .long, help: "Return once the notice is sent, without waiting for the app to be gone.")
    var noWait = false

    @Option(name: .long, help: "Seconds to wait for the app to be gone (the broker's notice deadline and kill grace fit in the default).")
    var timeout: Double = 30

    func run() async throws {
        try await BrokerConnection.withRunningBroker("quit", notRunning: {
            FileHandle.standardError.write(Data("courier quit: no broker is running on this bus, so no app is managed\n".utf8))
        }) { client in
            // Subscribed first, so the end cannot be missed between the call and the wait.
            let changes = try await client.stateChanges(of: bundleID)
            do throws(CourierError) {
                if force { try await client.kill(bundleID: bundleID) } else { try await client.terminate(bundleID: bundleID) }
            } catch where error.code == .notRunning {
                // Already what quit asks for, when the app is registered; else there is no such app.
                guard try await client.listApplications().contains(where: { $0[CourierKey.bundleID] == bundleID }) else {
                    throw CourierError(.noHandler, "no app \(bundleID) is registered; `courier status` lists the registered apps")
                }
                print("\(bundleID) is not running")
                return
            } catch {
                throw error
            }
            if noWait { return }
            let gone = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await change in changes where change.state == "not-running" || change.state == "launching" { return true }
                    return false
                }
                group.addTask { [timeout] in
                    try? await Task.sleep(for: .milliseconds(Int64(max(0, timeout) * 1000)))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if !gone {
                let row = try await client.processes().first { $0[CourierKey.bundleID] == bundleID }
                let pid = row?[CourierKey.pid]
                let state = row?[CourierKey.state] ?? "unknown"
                throw CourierError(.notResponding, "\(bundleID)\(pid.map { " (pid \($0))" } ?? "") is still \(state) \(Self.seconds(timeout)) after it was told to quit; it is not responding: end it by hand\(pid.map { " (kill -KILL \($0))" } ?? "")")
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))s" : "\(value)s"
    }
}
