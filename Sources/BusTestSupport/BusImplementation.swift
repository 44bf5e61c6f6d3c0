import CourierProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which message bus `PrivateBus` runs: the reference `dbus-daemon` (default) or `dbus-broker`,
/// chosen by the `COURIER_TEST_BUS` environment variable (`dbus-daemon` or `dbus-broker`), so the
/// whole bus-level suite can be run against a second implementation without changing any test.
///
/// dbus-broker runs here without systemd (see LIBDBUS-NOTES.md, "Running dbus-broker without
/// systemd"): `dbus-broker-launch` in a private mount namespace with a stand-in journal socket,
/// its listening socket handed over by `systemd-socket-activate`. Bus activation goes through
/// systemd there, so it is unavailable: tests that need it check `supportsActivation` and skip.
public enum BusImplementation: String, Sendable, CaseIterable {
    case dbusDaemon = "dbus-daemon"
    case dbusBroker = "dbus-broker"

    /// The implementation selected by `COURIER_TEST_BUS`; `dbus-daemon` when unset or empty.
    /// An unknown value stops the test process with a message naming the accepted values, rather
    /// than silently testing the wrong bus.
    public static let current: BusImplementation = {
        guard let value = ProcessInfo.processInfo.environment["COURIER_TEST_BUS"], !value.isEmpty else { return .dbusDaemon }
        guard let kind = BusImplementation(rawValue: value) else {
            fatalError("COURIER_TEST_BUS=\(value) is not a bus implementation; use one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }()

    /// Whether a `servicesDirectory` given to `PrivateBus` starts services on demand.
    public var supportsActivation: Bool { self == .dbusDaemon }

    /// The Debian packages it needs, for error messages.
    var packages: String {
        switch self {
        case .dbusDaemon: "package dbus-daemon"
        case .dbusBroker: "packages dbus-broker, systemd, util-linux, python3"
        }
    }
}

/// Starting dbus-broker without systemd (the launcher's requirements, met in a child namespace).
enum DBusBrokerLauncher {
    /// The shell program run under `unshare --mount`: a tmpfs over /run/systemd holding a datagram
    /// listener at journal/socket (the launcher aborts without it; messages go to the bus log),
    /// then `exec` into systemd-socket-activate, which execs dbus-broker-launch: the spawned pid
    /// stays the launcher's, and the whole process group is killed on stop.
    static let script = #"""
        set -e
        sock=$1; conf=$2
        mkdir -p /run/systemd
        mount -t tmpfs courier-test-journal /run/systemd
        mkdir -p /run/systemd/journal
        /usr/bin/python3 -c '
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind("/run/systemd/journal/socket")
        while True:
            sys.stderr.buffer.write(s.recv(65536) + b"\n"); sys.stderr.flush()
        ' &
        i=0
        while [ ! -S /run/systemd/journal/socket ]; do
            i=$((i+1)); [ $i -lt 500 ] || { echo "journal stand-in did not start" >&2; exit 1; }
            sleep 0.01
        done
        exec /usr/bin/systemd-socket-activate -l "$sock" -E DBUS_SESSION_BUS_ADDRESS="unix:path=$sock" \
            /usr/bin/dbus-broker-launch --scope user --config-file "$conf"
        """#

    /// Whether a plain stream connection to the Unix socket at `path` succeeds (then closed).
    static func canConnect(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// The launcher's argv (the script written into `directory` first): `unshare` runs the
    /// script in a private mount namespace. Throws when a tool it needs is missing.
    static func arguments(directory: URL, config: URL, socket: String) throws -> [String] {
        for tool in ["/usr/bin/dbus-broker-launch", "/usr/bin/systemd-socket-activate", "/usr/bin/unshare", "/usr/bin/python3"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw PrivateBusError("COURIER_TEST_BUS=dbus-broker needs \(tool) (\(BusImplementation.dbusBroker.packages))")
        }
        try script.write(to: directory.appendingPathComponent("dbus-broker.sh"), atomically: true, encoding: .utf8)
        return ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "dbus-broker.sh", socket, config.path]
    }

    /// Ready once the socket accepts connections (it exists between bind and listen, refusing);
    /// connections queue in the backlog until the broker itself runs. At most 15 s.
    static func waitUntilListening(_ launcher: ChildProcess, socket: String) -> Result<String, PrivateBusError> {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let termination = launcher.poll() {
                return .failure(PrivateBusError("dbus-broker ended during start-up (\(termination))"))
            }
            if access(socket, F_OK) == 0, canConnect(socket) { return .success("unix:path=\(socket)") }
            usleep(5_000)
        }
        return .failure(PrivateBusError("dbus-broker did not listen on \(socket) within 15 s"))
    }
}
