public import DBus
public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` for tests: its own config file and socket in a fresh temporary
/// directory, nothing shared with the machine's buses.
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

    /// Whether `servicesDirectory` works on the selected bus (not under dbus-broker without systemd).
    public static var supportsActivation: Bool { BusImplementation.current.supportsActivation }

    /// Starts a daemon and waits until it prints its address (it is then accepting connections).
    /// - Parameter servicesDirectory: an optional directory of `.service` files for bus activation.
    public init(servicesDirectory: URL? = nil) throws {
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
            </busconfig>

            """
        let configURL = dir.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        implementation = BusImplementation.current
        if implementation == .dbusBroker {
            guard servicesDirectory == nil else {
                throw PrivateBusError("bus activation is unavailable under COURIER_TEST_BUS=dbus-broker (it needs systemd); skip with PrivateBus.supportsActivation")
            }
            (address, pid) = try DBusBrokerLauncher.start(directory: dir, config: configURL, socket: socket)
            directory = dir
            return
        }

        // posix_spawn rather than Foundation.Process: stop() must be a plain kill + waitpid that
        // never depends on a run loop.
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw PrivateBusError("pipe() failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        let logPath = dir.appendingPathComponent("daemon.log").path
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = [
            "/usr/bin/dbus-daemon", "--config-file", configURL.path, "--print-address", "--nofork", "--nopidfile",
            "--nosyslog",
        ]
        var cargs = argv.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        // The spawning thread may block signals (Swift's thread pools do); the daemon must not inherit that.
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attr, &noSignals)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let rc = posix_spawn(&child, argv[0], &actions, &attr, &cargs, environ)
        close(pipeFDs[1])
        guard rc == 0 else {
            close(pipeFDs[0])
            throw PrivateBusError("cannot start /usr/bin/dbus-daemon (install the `dbus-daemon` package): error \(rc)")
        }
        // The daemon prints the address once it listens.
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let n = read(pipeFDs[0], &buffer, buffer.count)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        close(pipeFDs[0])
        guard let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first, !line.isEmpty else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw PrivateBusError("dbus-daemon exited without printing its address (config \(configURL.path))")
        }
        self.address = String(line)
        self.directory = dir
        self.pid = child
    }

    /// An environment for child processes: the current one with `DBUS_SESSION_BUS_ADDRESS` set
    /// to this bus (and `DBUS_SYSTEM_BUS_ADDRESS` removed, so nothing strays to the host).
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        env["DBUS_SYSTEM_BUS_ADDRESS"] = nil
        return env
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
        // dbus-broker runs as a process group (launcher, broker, journal stand-in).
        kill(implementation == .dbusBroker ? -pid : pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
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
