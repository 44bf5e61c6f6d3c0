public import DBus

/// The public D-Bus names of Courier (DESIGN.md, "Public contract"): stable, extend, don't rename.
public enum CourierBus {
    /// The broker's well-known name.
    public static let brokerName: BusName = "org.courier.Broker"
    public static let brokerPath: ObjectPath = "/org/courier/Broker"
    public static let brokerInterface: InterfaceName = "org.courier.Broker1"
    /// What every Courier app serves at the object path made from its bundle id.
    public static let applicationInterface: InterfaceName = "org.courier.Application1"
    /// The freedesktop interface desktop tools use to open URIs in an app.
    public static let freedesktopApplicationInterface: InterfaceName = "org.freedesktop.Application"

    /// `com.acme.todolist` → `/com/acme/todolist` (the freedesktop rule: `.` → `/`, `-` → `_`).
    public static func objectPath(forBundleID bundleID: String) throws(CourierError) -> ObjectPath {
        guard let name = BusName(validating: bundleID), !name.isUnique, let path = try? ObjectPath(busName: name) else {
            throw CourierError(.invalidBundleID, "'\(bundleID)' is not a valid bundle id (reverse-DNS, e.g. com.acme.todolist)")
        }
        return path
    }
}
