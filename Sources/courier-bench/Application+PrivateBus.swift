import BusTestSupport
import Courier
import Glibc

extension Application {
    /// An app served by this process on `bus`, connected the way every app connects: to the
    /// session bus `DBUS_SESSION_BUS_ADDRESS` names, pointed at the private bus while the app
    /// connects (in its initializer) and restored after. The benchmark runs one step at a time,
    /// so nothing else reads the variable meanwhile.
    static func onBus(_ bus: PrivateBus, bundleID: String, delegate: any ApplicationDelegate) throws -> Application {
        let name = "DBUS_SESSION_BUS_ADDRESS"
        let saved = getenv(name).map { String(cString: $0) }
        setenv(name, bus.address, 1)
        defer { if let saved { setenv(name, saved, 1) } else { unsetenv(name) } }
        return try Application(bundleID: bundleID, delegate: delegate)
    }
}
