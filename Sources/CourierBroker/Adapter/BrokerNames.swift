public import DBus
import Synchronization

/// The broker's public D-Bus names (DESIGN.md "Public contract"; the `Courier` library has the same
/// constants for clients).
public enum BrokerNames {
    public static let busName: BusName = "org.courier.Broker"
    public static let objectPath: ObjectPath = "/org/courier/Broker"
    public static let interface: InterfaceName = "org.courier.Broker1"
    public static let applicationInterface: InterfaceName = "org.courier.Application1"

    /// `com.acme.todolist` → `/com/acme/todolist`. Remembered per bundle id: every delivery needs
    /// it, and mapping plus validating costs more than the rest of building the call.
    static func applicationPath(_ bundleID: String) throws(BrokerError) -> ObjectPath {
        if let path = applicationPaths.withLock({ $0[bundleID] }) { return path }
        guard let name = BusName(validating: bundleID), !name.isUnique, let path = try? ObjectPath(busName: name) else {
            throw BrokerError(.notPermitted, "'\(bundleID)' is not a valid bundle id (reverse-DNS, e.g. com.acme.todolist)")
        }
        applicationPaths.withLock { paths in
            if paths.count >= 4096 { paths.removeAll(keepingCapacity: true) }
            paths[bundleID] = path
        }
        return path
    }

    private static let applicationPaths = Mutex<[String: ObjectPath]>([:])
}

extension BrokerError {
    /// The error as a D-Bus error reply.
    public var dbusError: DBusError { DBusError(name: dbusName, message: message) }
}
