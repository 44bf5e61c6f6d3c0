public import DBus
public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` for tests: its own config file and socket in a fresh temporary
/// directory, nothing shared with the machine's buses. Its message size limits are the session
/// bus's (session.conf: 1 GB), not dbus-daemon's built-in 32 MiB, so large payloads meet the same
/// bus as on a desktop.
///
/// ```swift
/// try await withPrivateBus { bus in
///     let c = try bus.connect()
///     …
/// }
/// ```
/// Child processes reach it through `environment` (it sets `DBUS_SESSION_BUS_ADDRESS`).
public final class PrivateBus: Sendable {
    /// The bus address (`unix:path=…/bus,guid=…`), as printed by the daemon.
    public let address: String
    /// The temporary directory holding the config, the socket and anything tests put there.
    public let directory: URL
    /// The daemon's process id.
    public let pid: Int32
    /// The bus implementation running (`COURIER_TEST_BUS`, see `BusImplementation`).
    public let implementation: BusImplementation
    private let stopped = Mutex(false)
    private let daemon: BusDaemon

    /// Whether `servicesDirectory` works on the selected bus (not under dbus-broker without systemd).
    public static var supportsActivation: Bool { BusImplementation.current.supportsActivation }

    /// Starts a bus and waits until it accepts connections.
    /// - Parameters:
    ///   - servicesDirectory: an optional directory of `.service` files for bus activation.
    ///   - environment: the daemon's environment, which the services it activates inherit (this
    ///     process's when nil).
    public init(servicesDirectory: URL? = nil, environment: [String: String]? = nil) throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-bus-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let socket = dir.appendingPathComponent("bus").path
        let services = servicesDirectory.map { "  <servicedir>\($0.path)</servicedir>\n" } ?? ""
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
            \(services)  <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
              <limit name="reply_timeout">300000</limit>
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <limit name="max_message_size">1000000000</limit>
            </busconfig>

            """
        let configURL = dir.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        implementation = BusImplementation.current
        if implementation == .dbusBroker && servicesDirectory != nil {
            throw PrivateBusError("bus activation is unavailable under COURIER_TEST_BUS=dbus-broker (it needs systemd); skip with PrivateBus.supportsActivation")
        }
        daemon = try BusDaemon.start(implementation, directory: dir, config: configURL, socket: socket, environment: environment)
        address = daemon.address
        pid = daemon.process.pid
        directory = dir
    }

    /// An environment for child processes: the current one with `DBUS_SESSION_BUS_ADDRESS` set
    /// to this bus (and `DBUS_SYSTEM_BUS_ADDRESS` removed, so nothing strays to the host).
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        env["DBUS_SYSTEM_BUS_ADDRESS"] = nil
        return env
    }

    /// `environment` with the XDG data, config and state homes in `root` (`data`, `config`,
    /// `state`), so that a courierd or an app started with it touches nothing of the user's.
    public func environment(homesIn root: URL) -> [String: String] {
        var environment = self.environment
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        return environment
    }

    /// A new connection to this bus (registered, with a unique name).
    public func connect() throws -> DBusConnection {
        try DBusConnection(address: address)
    }

    /// Stops the daemon and removes the temporary directory. Idempotent.
    public func stop() {
        let first = stopped.withLock { s in
            defer { s = true }
            return !s
        }
        guard first else { return }
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// A failure to start the private bus.
public struct PrivateBusError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `body` with a fresh private bus and stops it afterwards (also when `body` throws).
public func withPrivateBus<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
    let bus = try PrivateBus()
    defer { bus.stop() }
    return try await body(bus)
}
