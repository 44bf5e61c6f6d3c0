import DBus
import Foundation

/// `--annotation JSON` as a D-Bus value: objects → `a{sv}`, arrays → `av`, strings → `s`,
/// integers → `x`, other numbers → `d`, booleans → `b`. `null` has no D-Bus form and is refused.
enum JSONAnnotation {
    static func value(from text: String) throws -> DBusValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)).dbusValue
        } catch let error as AnnotationError {
            throw error
        } catch {
            throw AnnotationError(message: "--annotation is not valid JSON: \(error)")
        }
    }

    private enum JSONValue: Decodable {
        case bool(Bool), integer(Int64), number(Double), string(String)
        indirect case array([JSONValue])
        indirect case object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { throw AnnotationError(message: "--annotation: null has no D-Bus equivalent; leave the key out") }
            if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Int64.self) { self = .integer(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
            else { self = .object(try container.decode([String: JSONValue].self)) }
        }

        var dbusValue: DBusValue {
            switch self {
            case .bool(let value): .boolean(value)
            case .integer(let value): .int64(value)
            case .number(let value): .double(value)
            case .string(let value): .string(value)
            case .array(let values): .array(.variant, values.map { .variant($0.dbusValue) })
            case .object(let values): .vardict(values.mapValues(\.dbusValue))
            }
        }
    }
}

struct AnnotationError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
