public import DBus
public import CourierNames
import Synchronization

/// Where an app is on the bus: the bus name it owns and the object path it serves
/// (`Application1`), mapped from its bundle id by `BundleIdentifier` (the D-Bus specification's
/// rule): `com.acme.todolist` → `com.acme.todolist` at `/com/acme/todolist`; `com.8bit.bitwarden` →
/// `com._8bit.bitwarden` at `/com/_8bit/bitwarden`.
public struct ApplicationAddress: Sendable, Hashable {
    public let busName: BusName
    public let objectPath: ObjectPath

    /// The address of `bundleID`; `InvalidArguments` for a bundle id that is not one, or maps to a
    /// name libdbus refuses. Remembered per bundle id: the broker needs it for every delivery, and
    /// mapping plus validating costs more than the rest of building the call.
    public init(bundleID: String) throws(CourierError) {
        if let known = Self.known.withLock({ $0.byBundleID[bundleID] }) {
            self = known
            return
        }
        let identifier: BundleIdentifier
        do { identifier = try BundleIdentifier(bundleID) } catch { throw CourierError(.invalidArguments, error.description) }
        guard let name = BusName(validating: identifier.busName), let path = ObjectPath(validating: identifier.objectPath) else {
            throw CourierError(.invalidArguments, "'\(bundleID)' maps to \(identifier.busName), which libdbus refuses as a bus name")
        }
        self.busName = name
        self.objectPath = path
        Self.known.withLock { known in
            if known.byBundleID.count >= 4096 { known = Known() }
            known.byBundleID[bundleID] = self
            known.byBusName[name.rawValue] = bundleID
        }
    }

    /// The bundle id whose bus name is `busName`: among those mapped so far, else among
    /// `registered` (the registry keeps bus names unique among registered apps); `busName` itself
    /// when none maps to it. A name without `_` maps only to itself, so only those with one are looked up.
    public static func bundleID(ofBusName busName: String, registered: () -> [String]) -> String {
        if let known = known.withLock({ $0.byBusName[busName] }) { return known }
        guard busName.contains("_") else { return busName }
        for id in registered() where id != busName && BundleIdentifier(validating: id)?.busName == busName {
            _ = try? ApplicationAddress(bundleID: id)
            return id
        }
        return busName
    }

    private struct Known {
        var byBundleID: [String: ApplicationAddress] = [:]
        var byBusName: [String: String] = [:]
    }

    private static let known = Mutex(Known())
}
