public import CourierNames

/// An error the broker answers with; every one maps to a D-Bus error named `org.courier.Error.<Code>`.
///
/// `Code` is the shared table of Courier error names (`CourierErrorCode`, module `CourierNames`,
/// also what the `Courier` client library decodes): an open set of static members, so new failure
/// kinds can be added without breaking clients that switch over the known ones. `message` says what
/// happened, to what, and what to do next; it is what `courier open` prints on stderr.
public struct BrokerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; its `rawValue` is the last component of the D-Bus error name.
    public typealias Code = CourierErrorCode

    /// The prefix shared by every Courier error name on the bus.
    public static let dbusNamePrefix = CourierErrorCode.dbusNamePrefix

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Rebuilds an error from a D-Bus error reply; `nil` when the name is not a Courier error.
    public init?(dbusName: String, message: String) {
        guard let code = Code(dbusName: dbusName) else { return nil }
        self.init(code, message)
    }

    /// The D-Bus error name, e.g. `org.courier.Error.LaunchTimeout`.
    public var dbusName: String { code.dbusName }

    public var description: String { "\(dbusName): \(message)" }
}
