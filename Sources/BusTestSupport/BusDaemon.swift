import CourierProcess
import Foundation

/// A running message bus for `PrivateBus`: the one start-up path of both implementations.
///
/// Either bus is started by the shared `Spawner` (clean signal state, only descriptors 0–2
/// inherited: stop() must be a plain kill + waitpid that never depends on a run loop, and the
/// daemon must not inherit a Swift thread's blocked signals), its diagnostics appended to
/// `daemon.log` in the bus's folder, and is ready when it accepts connections: `dbus-daemon`
/// says so by printing its address; dbus-broker (through `DBusBrokerLauncher`) once its socket
/// accepts a connection. A bus that exits or stays silent during start-up is killed and reaped
/// and the error quotes its log.
struct BusDaemon: Sendable {
    /// The bus address clients connect to.
    let address: String
    /// The daemon (dbus-daemon) or the process-group leader (dbus-broker's launcher).
    let process: ChildProcess
    let implementation: BusImplementation

    /// Starts `implementation` with `config`, listening on `socket`, logging into `directory`.
    static func start(_ implementation: BusImplementation, directory: URL, config: URL, socket: String,
                      environment: [String: String]? = nil) throws -> BusDaemon {
        let log = directory.appendingPathComponent("daemon.log").path
        let argv: [String]
        let standardOutput: SpawnOutput
        switch implementation {
        case .dbusDaemon:
            argv = ["/usr/bin/dbus-daemon", "--config-file", config.path, "--print-address", "--nofork", "--nopidfile", "--nosyslog"]
            standardOutput = .pipe
        case .dbusBroker:
            argv = try DBusBrokerLauncher.arguments(directory: directory, config: config, socket: socket)
            standardOutput = .file(log, append: true)
        }
        let process: ChildProcess
        do {
            // dbus-broker runs as a process group (launcher, broker, journal stand-in), killed as one.
            process = try Spawner.start(path: argv[0], arguments: argv, environment: environment, standardOutput: standardOutput,
                                        standardError: implementation == .dbusBroker ? .standardOutput : .file(log, append: true),
                                        newProcessGroup: implementation == .dbusBroker)
        } catch {
            throw PrivateBusError("cannot start \(argv[0]) for \(implementation.rawValue) (\(implementation.packages)): \(error)")
        }
        let readiness: Result<String, PrivateBusError>
        switch implementation {
        case .dbusDaemon:
            // The daemon prints the address once it listens.
            let line = process.readOutput(until: "\n")?.split(separator: "\n").first.map(String.init)
            process.closeOutput()
            readiness = line.map { .success($0) }
                ?? .failure(PrivateBusError("dbus-daemon exited without printing its address (config \(config.path))"))
        case .dbusBroker:
            readiness = DBusBrokerLauncher.waitUntilListening(process, socket: socket)
        }
        switch readiness {
        case .success(let address):
            return BusDaemon(address: address, process: process, implementation: implementation)
        case .failure(let error):
            process.kill(processGroup: implementation == .dbusBroker)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PrivateBusError("\(error); log \(log):\n\(text)")
        }
    }

    /// Kills the bus (the whole process group under dbus-broker) and reaps it.
    func stop() {
        process.kill(processGroup: implementation == .dbusBroker)
    }
}
