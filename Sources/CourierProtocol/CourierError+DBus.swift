public import CourierNames
public import DBus

/// The one edge between `CourierError` (CourierNames, which links no D-Bus binding) and the
/// binding's `DBusError`, for the broker, the app library and the tools alike.
extension CourierError {
    /// Any error from a bus call: a `CourierError` as it is, a D-Bus error reply classified by its
    /// name (`init(dbusName:message:)`), anything else `bus`.
    public init(wrapping error: any Error) {
        if let error = error as? CourierError { self = error }
        else if let error = error as? DBusError { self.init(dbusName: error.name, message: error.message) }
        else { self.init(.bus, "\(error)") }
    }

    /// The error as a D-Bus error reply.
    public var dbusError: DBusError { DBusError(name: dbusName, message: message) }
}
