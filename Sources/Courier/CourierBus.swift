import CourierNames
package import DBus

/// The public D-Bus names of Courier (`CourierBusNames`, DESIGN.md "Public contract") with their
/// D-Bus types, for apps and clients. The names are constants that are valid by construction.
package enum CourierBus {
    /// The broker's well-known name.
    package static let brokerName = try! BusName(CourierBusNames.broker)
    package static let brokerPath = try! ObjectPath(CourierBusNames.brokerPath)
    package static let brokerInterface = try! InterfaceName(CourierBusNames.brokerInterface)
    /// What the broker serves on an app's direct link (`BrokerLink`).
    package static let brokerLinkInterface = try! InterfaceName(CourierBusNames.brokerLinkInterface)
    /// What every Courier app serves at the object path made from its bundle id.
    package static let applicationInterface = try! InterfaceName(CourierBusNames.applicationInterface)
    /// The freedesktop interface desktop tools use to open URIs in an app.
    package static let freedesktopApplicationInterface = try! InterfaceName(CourierBusNames.freedesktopApplicationInterface)

    /// The bus name an app owns and the object path it serves, mapped from its bundle id by
    /// `BundleIdentifier` (the D-Bus specification's rule): `com.acme.todolist` →
    /// `com.acme.todolist` at `/com/acme/todolist`; `com.8bit.bitwarden` → `com._8bit.bitwarden` at
    /// `/com/_8bit/bitwarden`.
    package static func address(ofBundleID bundleID: String) throws(CourierError) -> (name: BusName, path: ObjectPath) {
        let identifier: BundleIdentifier
        do { identifier = try BundleIdentifier(bundleID) } catch { throw CourierError(.invalidBundleID, error.description) }
        guard let name = BusName(validating: identifier.busName), let path = ObjectPath(validating: identifier.objectPath) else {
            throw CourierError(.invalidBundleID, "'\(bundleID)' maps to \(identifier.busName), which libdbus refuses as a bus name")
        }
        return (name, path)
    }
}
