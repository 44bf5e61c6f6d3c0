import CourierTools
import CourierNames
import CourierProcess
import DBus
import Foundation

/// How the CLI reaches the broker: the session bus first (which starts `courierd` by bus activation
/// when its service file is installed), else `courierd` started by the CLI itself — found next to
/// this executable or on `PATH`, detached, logging to `$XDG_STATE_HOME/courier/courierd.log`.
enum BrokerConnection {
    /// Runs `body` against the broker; when nobody owns `org.courier.Broker` and activation is not
    /// possible, starts `courierd` and runs `body` once more (a message to a missing name is never
    /// delivered, so the retry cannot duplicate a request).
    ///
    /// A connection the bus closed during the call is not a missing broker: no broker is started
    /// then (it would find the broker running, or be a second one), and the error says what happened.
    static func withBroker<T>(autostart: Bool = true, _ body: (BrokerToolClient) async throws(CourierError) -> T) async throws(CourierError) -> T {
        let client = try BrokerToolClient.session()
        do {
            return try await body(client)
        } catch where error.code == .brokerUnavailable && !client.connection.isConnected {
            throw CourierError(.bus, "the session bus closed this connection during the call (\(error.message)); no broker was started, and what the call did is unknown. A message with more file descriptors than the bus allows is one cause")
        } catch where error.code == .brokerUnavailable && autostart {
            try await startDaemon(client)
            return try await body(client)
        }
    }

    /// The call path of the commands that only look at or act on a running broker and never start
    /// one (`ps`, `quit`, `status`): without a broker, `notRunning` says so the command's way and
    /// it exits 8; a failure is one line `courier COMMAND: message` and its status.
    static func withRunningBroker(_ command: String, notRunning: () -> Void, _ body: (BrokerToolClient) async throws -> Void) async throws {
        do {
            let client = try BrokerToolClient.session()
            guard await client.brokerIsRunning() else {
                notRunning()
                throw CourierExitCode.brokerUnavailable.exitCode
            }
            try await body(client)
        } catch let error as CourierError {
            throw error.reported("courier \(command)")
        }
    }

    /// The running broker, or nil after a note on standard error (no session bus, or nobody owns
    /// `org.courier.Broker`): `command` then answers from the manifest folders on disk.
    static func runningRegistry(for command: String) async -> BrokerToolClient? {
        if let client = await BrokerToolClient.running() { return client }
        reportRegistryError("courier \(command): no broker is running; answering from the manifest folders on disk")
        return nil
    }

    static func startDaemon(_ client: BrokerToolClient) async throws(CourierError) {
        guard let executable = daemonExecutable() else {
            throw CourierError(.brokerUnavailable, "no broker runs on this bus and courierd was found neither next to courier nor on PATH; start courierd yourself")
        }
        let logFolder = CourierLayout.current().stateFolder
        try? FileManager.default.createDirectory(atPath: logFolder, withIntermediateDirectories: true)
        let logPath = logFolder + "/courierd.log"
        // The shared Spawner: standard input /dev/null, output and errors appended to the log, no
        // descriptor of this process and none of its signal settings inherited.
        let daemon: ChildProcess
        do {
            daemon = try Spawner.start(path: executable, arguments: [executable, "--started-by", "courier (no bus activation)"],
                                       standardOutput: .file(logPath, append: true), standardError: .standardOutput)
        } catch {
            throw CourierError(.brokerUnavailable, "cannot start \(executable): \(error)")
        }
        // Wait (bounded) until it owns the name.
        for _ in 0..<250 {
            if await client.brokerIsRunning() { return }
            if let termination = daemon.poll() {
                throw CourierError(.brokerUnavailable, "\(executable) ended (\(termination)) before owning org.courier.Broker; see \(logPath)")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw CourierError(.brokerUnavailable, "\(executable) did not take org.courier.Broker within 5 s; see \(logPath)")
    }

    static func daemonExecutable() -> String? {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let sibling = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("courierd").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        let sibling = own.deletingLastPathComponent().appendingPathComponent("courierd").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        return SearchPath.find("courierd", in: ProcessInfo.processInfo.environment["PATH"])
    }
}
