public import CourierNames
public import DBus

/// An error of the Courier library: a broker error (`org.courier.Error.*`) with its name and the
/// broker's message, or a local failure (no bus, no broker).
public struct CourierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure: for broker errors, the last component of the D-Bus error name (the
    /// shared table, `CourierErrorCode`), plus the local kinds below.
    public typealias Code = CourierErrorCode

    public static let dbusNamePrefix = CourierErrorCode.dbusNamePrefix

    public var code: Code
    public var message: String
    /// The D-Bus error name the failure came with, when it came over the bus.
    public var dbusName: String?

    public init(_ code: Code, _ message: String, dbusName: String? = nil) {
        self.code = code
        self.message = message
        self.dbusName = dbusName
    }

    /// Maps a D-Bus error reply: `org.courier.Error.X` keeps its code, bus-level failures to reach
    /// the broker become `brokerUnavailable`, anything else `bus`.
    public init(_ error: DBusError) {
        let code = Code(classifying: error.name)
        if code == .brokerUnavailable {
            self.init(code, "the Courier broker is not reachable (\(error.message)); start it with courierd", dbusName: error.name)
        } else {
            self.init(code, error.message, dbusName: error.name)
        }
    }

    /// Wraps any error from a bus call.
    public init(wrapping error: any Error) {
        if let error = error as? CourierError { self = error }
        else if let error = error as? DBusError { self.init(error) }
        else { self.init(.bus, "\(error)") }
    }

    /// The error as a D-Bus error reply (for the app library's handlers).
    public var dbusError: DBusError {
        DBusError(name: dbusName ?? code.dbusName, message: message)
    }

    public var description: String { "\(dbusName ?? code.dbusName): \(message)" }
}
