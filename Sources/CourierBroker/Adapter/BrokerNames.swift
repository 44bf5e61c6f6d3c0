import CourierNames
public import DBus
import Synchronization

// The broker's typed copy of CourierBusNames; Courier has the app side's (CourierBus). Deliberate:
// the broker does not link the app library, and CourierNames (the one table of the names) links no
// D-Bus binding to type them.
/// The public D-Bus names the broker serves and calls (`CourierBusNames`, DESIGN.md "Public
/// contract") with their D-Bus types. The names are constants that are valid by construction.
public enum BrokerNames {
    public static let busName = try! BusName(CourierBusNames.broker)
    public static let objectPath = try! ObjectPath(CourierBusNames.brokerPath)
    public static let interface = try! InterfaceName(CourierBusNames.brokerInterface)
    public static let applicationInterface = try! InterfaceName(CourierBusNames.applicationInterface)
    static let linkInterface = try! InterfaceName(CourierBusNames.brokerLinkInterface)
    static let freedesktopApplicationInterface = try! InterfaceName(CourierBusNames.freedesktopApplicationInterface)

    /// The bus name an app owns and the object path it serves, mapped from its bundle id by
    /// `BundleIdentifier` (`com.8bit.bitwarden` → `com._8bit.bitwarden`, `/com/_8bit/bitwarden`).
    /// Remembered per bundle id: every delivery needs it, and mapping plus validating costs more
    /// than the rest of building the call.
    static func application(_ bundleID: String) throws(CourierError) -> (name: BusName, path: ObjectPath) {
        if let address = addresses.withLock({ $0.byBundleID[bundleID] }) { return address }
        let identifier: BundleIdentifier
        do { identifier = try BundleIdentifier(bundleID) } catch { throw CourierError(.notPermitted, error.description) }
        guard let name = BusName(validating: identifier.busName), let path = ObjectPath(validating: identifier.objectPath) else {
            throw CourierError(.notPermitted, "'\(bundleID)' maps to \(identifier.busName), which libdbus refuses as a bus name")
        }
        addresses.withLock { addresses in
            if addresses.byBundleID.count >= 4096 { addresses = Addresses() }
            addresses.byBundleID[bundleID] = (name, path)
            addresses.byBusName[name.rawValue] = bundleID
        }
        return (name, path)
    }

    /// The bundle id whose bus name is `busName`: among those mapped so far, else among
    /// `registered` (the registry keeps bus names unique among registered apps); `busName` itself
    /// when none maps to it. A name without `_` maps only to itself, so only those with one are looked up.
    static func bundleID(ofBusName busName: String, registered: () -> [String]) -> String {
        if let known = addresses.withLock({ $0.byBusName[busName] }) { return known }
        guard busName.contains("_") else { return busName }
        for id in registered() where id != busName && BundleIdentifier(validating: id)?.busName == busName {
            _ = try? application(id)
            return id
        }
        return busName
    }

    /// `application(bundleID).path`.
    static func applicationPath(_ bundleID: String) throws(CourierError) -> ObjectPath { try application(bundleID).path }

    private struct Addresses {
        var byBundleID: [String: (name: BusName, path: ObjectPath)] = [:]
        var byBusName: [String: String] = [:]
    }

    private static let addresses = Mutex(Addresses())
}

// The broker's edge between `CourierError` (CourierNames, which links no D-Bus binding) and the
// binding's `DBusError`; the app library has the same line (Courier's CourierError+DBus.swift):
// the two modules share no module that links both DBus and CourierNames.
extension CourierError {
    /// The error as a D-Bus error reply.
    package var dbusError: DBusError { DBusError(name: dbusName, message: message) }
}
