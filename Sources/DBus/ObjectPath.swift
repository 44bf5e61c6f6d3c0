/// A D-Bus object path such as `/org/courier/Broker`.
///
/// Validated on construction (see `ValidatedName`).
public struct ObjectPath: ValidatedName {
    /// The validated text, e.g. `/org/courier/Broker`.
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusValidationError) {
        try NameValidation.path(rawValue)
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }
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
