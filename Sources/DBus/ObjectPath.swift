/// A D-Bus object path such as `/org/courier/Broker`.
///
/// Validated on construction (object path rules of the D-Bus specification, checked by libdbus's own
/// validator), so an invalid value cannot exist and can never reach a libdbus call that aborts.
/// String literals are accepted for names written in code; they trap if invalid (a programming error).
public struct ObjectPath: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The validated text, e.g. `/org/courier/Broker`.
    public let rawValue: String

    /// Validates `rawValue`; throws `DBusValidationError` saying why it is not a valid object path.
    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.path(rawValue)
        self.rawValue = rawValue
    }

    /// Returns nil when `rawValue` is not a valid object path.
    public init?(validating rawValue: String) {
        guard (try? NameValidation.path(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

extension ObjectPath {
    /// The root path `/`.
    public static let root = ObjectPath(unchecked: "/")

    /// The freedesktop mapping of a bus name to an object path: `com.acme.todolist` → `/com/acme/todolist`
    /// (`-` becomes `_`, a segment starting with a digit gets a leading `_`).
    public init(busName: BusName) throws(DBusValidationError) {
        let segments = busName.rawValue.split(separator: ".").map { seg -> String in
            var s = String(seg.map { $0 == "-" ? "_" : $0 })
            if let f = s.first, f.isNumber { s = "_" + s }
            return s
        }
        try self.init("/" + segments.joined(separator: "/"))
    }

    /// `self` followed by one more element.
    public func appending(_ element: String) throws(DBusValidationError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }
}

extension BusName {
    /// `org.freedesktop.DBus`, the message bus itself.
    public static let bus = BusName(unchecked: "org.freedesktop.DBus")
    /// True for a unique connection name (`:1.42`).
    public var isUnique: Bool { rawValue.hasPrefix(":") }
}
