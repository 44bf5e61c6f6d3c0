public import DBus
public import CourierNames

/// A key of one of the protocol's `a{sv}` dictionaries with the D-Bus type of its value: the
/// dictionaries are read and written through it (`options[CourierKey.bundleID]`), so no caller
/// spells a key or guesses its type. The keys are declared in `CourierKey`.
public struct OptionKey<Value: DBusRepresentable>: Sendable, CustomStringConvertible {
    public let name: String
    init(_ name: String) { self.name = name }
    public var description: String { name }
}

extension Dictionary where Key == String, Value == DBusValue {
    /// The value under `key` when it has the key's type; nil when absent or of another type.
    /// Setting nil removes the key.
    @inlinable public subscript<T>(key: OptionKey<T>) -> T? {
        get { try? decode(key) }
        set { self[key.name] = newValue.map(\.payload) }
    }

    /// The value under `key`; nil when absent; `InvalidArguments` naming the key when present
    /// with another type (a caller's option is refused, never silently dropped).
    @inlinable public func decode<T>(_ key: OptionKey<T>) throws(CourierError) -> T? {
        guard let value = self[key.name]?.unwrapped else { return nil }
        if T.self == DBusValue.self { return unsafeBitCast(value, to: T.self) }
        do {
            return try T(dbusValue: value)
        } catch {
            throw CourierError(.invalidArguments, "the option '\(key.name)' must be of D-Bus type '\(T.dbusType)', not '\(value.type)'")
        }
    }
}

extension DBusRepresentable {
    /// What an `a{sv}` holds for the value: the value itself, or the variant's content.
    @inlinable var payload: DBusValue {
        // A key of type DBusValue holds the value itself (checked on the type, not by a dynamic cast).
        Self.self == DBusValue.self ? unsafeBitCast(self, to: DBusValue.self) : dbusValue
    }
}

/// One entry of an `a{sv}` dictionary, made by a key from a value of its type: `CourierKey.pid(4)`.
public struct OptionEntry: Sendable {
    public let key: String
    public let value: DBusValue

    @inlinable init(key: String, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension OptionKey {
    /// The entry `key: value`, for `[String: DBusValue](entries…)`.
    @inlinable public func callAsFunction(_ value: Value) -> OptionEntry { OptionEntry(key: name, value: value.payload) }
}

extension Dictionary where Key == String, Value == DBusValue {
    /// The dictionary of `entries` (a later entry replaces an earlier one of the same key).
    @inlinable public init(_ entries: OptionEntry...) {
        self.init(minimumCapacity: entries.count)
        for entry in entries { self[entry.key] = entry.value }
    }
}
