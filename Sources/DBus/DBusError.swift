/// An error from the bus, a peer, or this binding, carrying a D-Bus error name and a message.
///
/// A D-Bus error reply becomes a `DBusError` that keeps the reply's name and message, so callers
/// can switch on `name` (`org.courier.Error.NoHandler`, `org.freedesktop.DBus.Error.ServiceUnknown`,
/// …). A handler that throws a `DBusError` sends exactly that name and message back to its caller.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: String
    /// The human-readable message (the first string argument of an error reply).
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public init(_ name: ErrorName, _ message: String) {
        self.name = name.rawValue
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    // Standard names (org.freedesktop.DBus.Error.*).
    public static let failedName = "org.freedesktop.DBus.Error.Failed"
    public static let invalidArgsName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let unknownMethodName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObjectName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterfaceName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownPropertyName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnlyName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let noReplyName = "org.freedesktop.DBus.Error.NoReply"
    public static let timeoutName = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnectedName = "org.freedesktop.DBus.Error.Disconnected"
    public static let serviceUnknownName = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwnerName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let accessDeniedName = "org.freedesktop.DBus.Error.AccessDenied"
    public static let notSupportedName = "org.freedesktop.DBus.Error.NotSupported"

    public static func failed(_ message: String) -> DBusError { .init(name: failedName, message: message) }
    public static func invalidArgs(_ message: String) -> DBusError { .init(name: invalidArgsName, message: message) }
    public static func unknownMethod(_ message: String) -> DBusError { .init(name: unknownMethodName, message: message) }
    public static func unknownObject(_ message: String) -> DBusError { .init(name: unknownObjectName, message: message) }
    public static func unknownInterface(_ message: String) -> DBusError { .init(name: unknownInterfaceName, message: message) }
    public static func unknownProperty(_ message: String) -> DBusError { .init(name: unknownPropertyName, message: message) }
    public static func propertyReadOnly(_ message: String) -> DBusError { .init(name: propertyReadOnlyName, message: message) }
    public static func disconnected(_ message: String) -> DBusError { .init(name: disconnectedName, message: message) }
    public static func timeout(_ message: String) -> DBusError { .init(name: timeoutName, message: message) }
    public static func notSupported(_ message: String) -> DBusError { .init(name: notSupportedName, message: message) }
}
