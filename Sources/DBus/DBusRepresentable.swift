/// A Swift type with a fixed D-Bus type: the typed mapping in and out of `DBusValue`.
///
/// Conformances cover the basic types, `String`, `ObjectPath`, `Signature`, `UnixFD`, arrays and
/// dictionaries of representable types, and `DBusValue` itself as a variant (`v`). `Int` is left
/// out on purpose (ambiguous between `i` and `x`). Your own structs conform by listing their fields:
///
/// ```swift
/// struct Point: DBusRepresentable {
///     var x: Int32, y: Int32
///     static var dbusType: DBusType { .structure([.int32, .int32]) }
///     var dbusValue: DBusValue { .structure([.int32(x), .int32(y)]) }
///     init(dbusValue v: DBusValue) throws(DBusError) {
///         guard case .structure(let f) = v, f.count == 2, case .int32(let x) = f[0], case .int32(let y) = f[1]
///         else { throw .typeMismatch(Self.self, v) }
///         self.x = x; self.y = y
///     }
/// }
/// ```
public protocol DBusRepresentable: Sendable {
    static var dbusType: DBusType { get }
    var dbusValue: DBusValue { get }
    /// Throws `InvalidArgs` when `dbusValue` does not have this type.
    init(dbusValue: DBusValue) throws(DBusError)
}

extension DBusError {
    /// The `InvalidArgs` error for a value that does not have the expected type.
    public static func typeMismatch(_ type: any DBusRepresentable.Type, _ value: DBusValue) -> DBusError {
        .invalidArgs("expected a value of D-Bus type '\(type.dbusType)', got '\(value.type)'")
    }
}

extension Array where Element == DBusValue {
    /// The argument at `index` as `T`, or `InvalidArgs` saying which argument was wrong.
    public func decode<T: DBusRepresentable>(_ type: T.Type = T.self, at index: Int) throws(DBusError) -> T {
        guard index < count else { throw .invalidArgs("missing argument \(index) of type '\(T.dbusType)'") }
        return try T(dbusValue: self[index])
    }
}

extension UInt8: DBusRepresentable {
    public static var dbusType: DBusType { .byte }
    public var dbusValue: DBusValue { .byte(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .byte(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Bool: DBusRepresentable {
    public static var dbusType: DBusType { .boolean }
    public var dbusValue: DBusValue { .boolean(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .boolean(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Int16: DBusRepresentable {
    public static var dbusType: DBusType { .int16 }
    public var dbusValue: DBusValue { .int16(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .int16(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension UInt16: DBusRepresentable {
    public static var dbusType: DBusType { .uint16 }
    public var dbusValue: DBusValue { .uint16(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .uint16(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Int32: DBusRepresentable {
    public static var dbusType: DBusType { .int32 }
    public var dbusValue: DBusValue { .int32(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .int32(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension UInt32: DBusRepresentable {
    public static var dbusType: DBusType { .uint32 }
    public var dbusValue: DBusValue { .uint32(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .uint32(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Int64: DBusRepresentable {
    public static var dbusType: DBusType { .int64 }
    public var dbusValue: DBusValue { .int64(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .int64(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension UInt64: DBusRepresentable {
    public static var dbusType: DBusType { .uint64 }
    public var dbusValue: DBusValue { .uint64(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .uint64(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Double: DBusRepresentable {
    public static var dbusType: DBusType { .double }
    public var dbusValue: DBusValue { .double(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .double(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension String: DBusRepresentable {
    public static var dbusType: DBusType { .string }
    public var dbusValue: DBusValue { .string(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .string(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension ObjectPath: DBusRepresentable {
    public static var dbusType: DBusType { .objectPath }
    public var dbusValue: DBusValue { .objectPath(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .objectPath(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Signature: DBusRepresentable {
    public static var dbusType: DBusType { .signature }
    public var dbusValue: DBusValue { .signature(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .signature(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
/// A `DBusValue` maps to a variant (`v`).
extension DBusValue: DBusRepresentable {
    public static var dbusType: DBusType { .variant }
    public var dbusValue: DBusValue { .variant(self) }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .variant(let x) = v else { throw .typeMismatch(Self.self, v) }
        self = x
    }
}
extension Array: DBusRepresentable where Element: DBusRepresentable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    /// `[UInt8]` is `.bytes` (`ay` copied whole), every other array an `.array` of its elements.
    public var dbusValue: DBusValue {
        if let bytes = self as? [UInt8] { return .bytes(bytes) }
        return .array(Element.dbusType, map(\.dbusValue))
    }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        if case .bytes(let bytes) = v, let same = bytes as? Self {
            self = same
            return
        }
        guard v.type == Self.dbusType, let elements = v.arrayValue else { throw .typeMismatch(Self.self, v) }
        var out: [Element] = []
        out.reserveCapacity(elements.count)
        for e in elements { out.append(try Element(dbusValue: e)) }
        self = out
    }
}
extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }
    /// Entries are emitted in key-description order, so equal dictionaries give equal messages.
    public var dbusValue: DBusValue {
        .dictionary(
            key: Key.dbusType, value: Value.dbusType,
            map { DBusDictEntry($0.key.dbusValue, $0.value.dbusValue) }.sorted { "\($0.key)" < "\($1.key)" })
    }
    public init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .dictionary(let k, let t, let entries) = v, k == Key.dbusType, t == Value.dbusType else {
            throw .typeMismatch(Self.self, v)
        }
        var out: [Key: Value] = [:]
        for e in entries { out[try Key(dbusValue: e.key)] = try Value(dbusValue: e.value) }
        self = out
    }
}
extension UnixFD: DBusRepresentable {
    public static var dbusType: DBusType { .unixFD }
    public var dbusValue: DBusValue { .unixFD(self) }
    public convenience init(dbusValue v: DBusValue) throws(DBusError) {
        guard case .unixFD(let fd) = v, let raw = fd.rawValue else { throw .typeMismatch(UnixFD.self, v) }
        try self.init(duplicating: raw)
    }
}
