public import DBus

/// An error of the Courier library: a broker error (`org.courier.Error.*`) with its name and the
/// broker's message, or a local failure (no bus, no broker).
public struct CourierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; for broker errors, the last component of the D-Bus error name.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidURL = Code(rawValue: "InvalidURL")
        public static let noHandler = Code(rawValue: "NoHandler")
        public static let launchFailed = Code(rawValue: "LaunchFailed")
        public static let launchTimeout = Code(rawValue: "LaunchTimeout")
        public static let declined = Code(rawValue: "Declined")
        public static let notPermitted = Code(rawValue: "NotPermitted")
        public static let invalidManifest = Code(rawValue: "InvalidManifest")
        public static let limitsExceeded = Code(rawValue: "LimitsExceeded")
        public static let appFailed = Code(rawValue: "AppFailed")
        /// No session bus, or no broker on it (and it could not be started).
        public static let brokerUnavailable = Code(rawValue: "BrokerUnavailable")
        /// A bundle id that cannot be a bus name.
        public static let invalidBundleID = Code(rawValue: "InvalidBundleID")
        /// Any other D-Bus error; `dbusName` keeps the original name.
        public static let bus = Code(rawValue: "Bus")
    }

    public static let dbusNamePrefix = "org.courier.Error."

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
        if error.name.hasPrefix(Self.dbusNamePrefix) {
            self.init(Code(rawValue: String(error.name.dropFirst(Self.dbusNamePrefix.count))), error.message, dbusName: error.name)
        } else if [DBusError.serviceUnknownName, DBusError.nameHasNoOwnerName, DBusError.disconnectedName].contains(error.name) {
            self.init(.brokerUnavailable, "the Courier broker is not reachable (\(error.message)); start it with courierd", dbusName: error.name)
        } else {
            self.init(.bus, error.message, dbusName: error.name)
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
        DBusError(name: dbusName ?? Self.dbusNamePrefix + code.rawValue, message: message)
    }

    public var description: String { "\(dbusName ?? Self.dbusNamePrefix + code.rawValue): \(message)" }
}
