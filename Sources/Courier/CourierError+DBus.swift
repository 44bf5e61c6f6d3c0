import CourierNames
import DBus

// The app library's edge between `CourierError` (CourierNames, which links no D-Bus binding) and
// the binding's `DBusError`. The broker has its own one-line `dbusError` (CourierBroker's
// BrokerNames.swift): the two modules share no module that links both DBus and CourierNames.
extension CourierError {
    /// Any error from a bus call: a `CourierError` as it is, a D-Bus error reply classified by its
    /// name (`init(dbusName:message:)`), anything else `bus`.
    package init(wrapping error: any Error) {
        if let error = error as? CourierError { self = error }
        else if let error = error as? DBusError { self.init(dbusName: error.name, message: error.message) }
        else { self.init(.bus, "\(error)") }
    }

    /// The error as a D-Bus error reply (for the app library's handlers).
    var dbusError: DBusError { DBusError(name: dbusName, message: message) }
}
