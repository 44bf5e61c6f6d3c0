import CourierNames
public import DBus

/// The public D-Bus names of Courier (`CourierBusNames`, DESIGN.md "Public contract") with their
/// D-Bus types, for apps and clients. The names are constants that are valid by construction.
public enum CourierBus {
    /// The broker's well-known name.
    public static let brokerName = try! BusName(CourierBusNames.broker)
    public static let brokerPath = try! ObjectPath(CourierBusNames.brokerPath)
    public static let brokerInterface = try! InterfaceName(CourierBusNames.brokerInterface)
    /// What every Courier app serves at the object path made from its bundle id.
    public static let applicationInterface = try! InterfaceName(CourierBusNames.applicationInterface)
    /// The freedesktop interface desktop tools use to open URIs in an app.
    public static let freedesktopApplicationInterface = try! InterfaceName(CourierBusNames.freedesktopApplicationInterface)

    /// `com.acme.todolist` → `/com/acme/todolist` (the freedesktop rule: `.` → `/`, `-` → `_`).
    public static func objectPath(forBundleID bundleID: String) throws(CourierError) -> ObjectPath {
        guard let name = BusName(validating: bundleID), !name.isUnique, let path = try? ObjectPath(busName: name) else {
            throw CourierError(.invalidBundleID, "'\(bundleID)' is not a valid bundle id (reverse-DNS, e.g. com.acme.todolist)")
        }
        return path
    }
}
