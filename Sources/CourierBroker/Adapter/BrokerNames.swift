import CourierNames
public import DBus
import Synchronization

/// The public D-Bus names the broker serves and calls (`CourierBusNames`, DESIGN.md "Public
/// contract") with their D-Bus types. The names are constants that are valid by construction.
public enum BrokerNames {
    public static let busName = try! BusName(CourierBusNames.broker)
    public static let objectPath = try! ObjectPath(CourierBusNames.brokerPath)
    public static let interface = try! InterfaceName(CourierBusNames.brokerInterface)
    public static let applicationInterface = try! InterfaceName(CourierBusNames.applicationInterface)
    static let freedesktopApplicationInterface = try! InterfaceName(CourierBusNames.freedesktopApplicationInterface)

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
