import DBus

/// A value that travels with a URL: a caller's `annotation`, the options the broker passed, an
/// app's `reply` (D-Bus variants on the wire).
///
/// Opaque on purpose: apps import `Courier` and see Courier's API, not the D-Bus binding it is built
/// on, so the binding can change without breaking them. Any D-Bus value fits (an annotation is
/// whatever the caller sent); the constructors and accessors cover what apps exchange. An accessor
/// looks through variant wrappers and is `nil` for a value of another type.
public struct CourierValue: Sendable, Hashable, CustomStringConvertible {
    /// The value as the D-Bus binding holds it.
    let dbusValue: DBusValue

    init(_ dbusValue: DBusValue) { self.dbusValue = dbusValue }

    public var description: String { dbusValue.description }

    public static func string(_ value: String) -> CourierValue { CourierValue(.string(value)) }
    public static func boolean(_ value: Bool) -> CourierValue { CourierValue(.boolean(value)) }
    public static func int32(_ value: Int32) -> CourierValue { CourierValue(.int32(value)) }
    public static func uint32(_ value: UInt32) -> CourierValue { CourierValue(.uint32(value)) }
    public static func int64(_ value: Int64) -> CourierValue { CourierValue(.int64(value)) }
    public static func uint64(_ value: UInt64) -> CourierValue { CourierValue(.uint64(value)) }
    public static func double(_ value: Double) -> CourierValue { CourierValue(.double(value)) }
    /// An array of strings (`as`).
    public static func strings(_ values: [String]) -> CourierValue { CourierValue(.strings(values)) }
    /// Bytes (`ay`).
    public static func bytes(_ values: [UInt8]) -> CourierValue { CourierValue(.bytes(values)) }
    /// A dictionary of named values (`a{sv}`).
    public static func dictionary(_ values: [String: CourierValue]) -> CourierValue { CourierValue(.vardict(values.dbusValues)) }

    public var stringValue: String? { dbusValue.stringValue }
    public var boolValue: Bool? { dbusValue.boolValue }
    public var int32Value: Int32? { dbusValue.int32Value }
    public var uint32Value: UInt32? { dbusValue.uint32Value }
    public var int64Value: Int64? { dbusValue.int64Value }
    public var uint64Value: UInt64? { dbusValue.uint64Value }
    public var doubleValue: Double? { dbusValue.doubleValue }
    public var stringArrayValue: [String]? { dbusValue.stringArrayValue }
    public var bytesValue: [UInt8]? { dbusValue.bytesValue }
    /// The elements of an array.
    public var arrayValue: [CourierValue]? { dbusValue.arrayValue?.map(CourierValue.init) }
    /// The entries of a dictionary with string keys.
    public var dictionaryValue: [String: CourierValue]? { dbusValue.vardictValue?.courierValues }
}

extension [String: CourierValue] {
    /// The dictionary as the binding's `a{sv}` entries.
    var dbusValues: [String: DBusValue] { mapValues(\.dbusValue) }
}

extension [String: DBusValue] {
    /// The binding's `a{sv}` entries as Courier values.
    var courierValues: [String: CourierValue] { mapValues(CourierValue.init) }
}
