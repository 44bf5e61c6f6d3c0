import CourierTypes
public import Foundation

/// A property-list value as a Sendable Swift value.
///
/// Foundation hands property lists back as `Any`; the manifest model keeps the parts Courier does
/// not interpret itself (such as `CourierURLFormat`) in this form so that a `Manifest` stays a
/// plain, comparable, thread-safe value. ``foundationValue`` converts back for APIs that take `Any`.
public enum PropertyListValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Converts what `PropertyListSerialization` returns; nil for anything a property list cannot hold.
    public init?(foundation value: Any) {
        switch value {
        case let b as Bool where type(of: value) == Bool.self:
            self = .boolean(b)
        case let s as String:
            self = .string(s)
        case let n as NSNumber:
            if let i = n as? Int { self = .integer(i) } else { self = .real(n.doubleValue) }
        case let d as Date:
            self = .date(d)
        case let d as Data:
            self = .data(d)
        case let a as [Any]:
            var out: [PropertyListValue] = []
            out.reserveCapacity(a.count)
            for element in a {
                guard let v = PropertyListValue(foundation: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        case let d as [String: Any]:
            var out: [String: PropertyListValue] = [:]
            out.reserveCapacity(d.count)
            for (k, element) in d {
                guard let v = PropertyListValue(foundation: element) else { return nil }
                out[k] = v
            }
            self = .dictionary(out)
        default:
            return nil
        }
    }

    /// The value as Foundation types (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`,
    /// `[String: Any]`), for initializers such as `init(propertyList: Any)`.
    public var foundationValue: Any {
        switch self {
        case .string(let s): return s
        case .integer(let i): return i
        case .real(let d): return d
        case .boolean(let b): return b
        case .date(let d): return d
        case .data(let d): return d
        case .array(let a): return a.map(\.foundationValue)
        case .dictionary(let d): return d.mapValues(\.foundationValue)
        }
    }

    /// The property-list type name used in diagnostics ("string", "array", …).
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .boolean: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }
}
