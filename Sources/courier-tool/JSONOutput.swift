import DBus
import Foundation

/// What the commands print with `--json`: typed `Encodable` results, one compact object per line,
/// keys sorted and `/` unescaped, so scripts can rely on the shape (and the compiler checks it).
enum JSONOutput {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Writes `value` and a newline on standard output.
    static func print(_ value: some Encodable) {
        guard let data = try? encoder.encode(value) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// A D-Bus value as JSON: variants unwrapped, integers as numbers, dictionaries by string key,
/// structures as arrays; anything else by its description.
enum JSONValue: Encodable, Equatable {
    case bool(Bool), int(Int64), uint(UInt64), double(Double), string(String)
    indirect case array([JSONValue])
    indirect case object([String: JSONValue])

    init(_ value: DBusValue) {
        switch value.unwrapped {
        case .boolean(let v): self = .bool(v)
        case .byte(let v): self = .int(Int64(v))
        case .int16(let v): self = .int(Int64(v))
        case .uint16(let v): self = .int(Int64(v))
        case .int32(let v): self = .int(Int64(v))
        case .uint32(let v): self = .int(Int64(v))
        case .int64(let v): self = .int(v)
        case .uint64(let v): self = .uint(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .objectPath(let v): self = .string(v.rawValue)
        case .signature(let v): self = .string(v.rawValue)
        case .array(_, let values): self = .array(values.map(JSONValue.init))
        case .bytes(let bytes): self = .array(bytes.map { .int(Int64($0)) })
        case .dictionary(_, _, let entries):
            var object: [String: JSONValue] = [:]
            for entry in entries { object[entry.key.unwrapped.stringValue ?? entry.key.description] = JSONValue(entry.value) }
            self = .object(object)
        case .structure(let fields): self = .array(fields.map(JSONValue.init))
        default: self = .string(value.description)
        }
    }

    /// A vardict (`a{sv}`) as a JSON object, its keys as they are (an app's own reply).
    static func object(_ dictionary: [String: DBusValue]) -> [String: JSONValue] { dictionary.mapValues(JSONValue.init) }

    /// A broker's `a{sv}` (its option keys are kebab-case, `bundle-id`) as a JSON object in the
    /// CLI's one key style, snake_case (`bundle_id`: docs/cli.md); so are the rows of an `aa{sv}`
    /// inside it (`ListProcesses`'s `ends`).
    static func fields(_ dictionary: [String: DBusValue]) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: dictionary.map { key, value in
            let json: JSONValue
            if case .array(.dictionary(key: .string, value: .variant), let rows) = value.unwrapped {
                json = .array(rows.map { .object(fields($0.vardictValue ?? [:])) })
            } else {
                json = JSONValue(value)
            }
            return (key.replacingOccurrences(of: "-", with: "_"), json)
        })
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .uint(let v): try container.encode(v)
        case .double(let v): try container.encode(v)
        case .string(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }
}

/// A failure in JSON output: the D-Bus error name and the message.
struct JSONError: Encodable, Equatable {
    var name: String
    var message: String
}

/// One line of `courier open --json` (a URL or a file), and each file of `courier drop --json`.
/// Only the fields that apply are present.
struct OpenOutcome: Encodable {
    var url: String?
    /// The URI handed to the desktop when it is not `url` as given (an IRI mapped, or the
    /// browser's reading of a path with dot segments).
    var uri: String?
    var file: String?
    var type: String?
    var typeReason: String?
    var bundleID: String?
    var accepted: Bool?
    var inboxURL: String?
    var path: String?
    var handled: Bool?
    /// In the Inbox and asked for, not waited for (`courier open FILE` without `-W`).
    var sent: Bool?
    var waited: Bool?
    var dryRun: Bool?
    /// `true` when a dry run would hand the item to the desktop; the opener (`gio`, `xdg-open`)
    /// when it was handed.
    var desktop: JSONValue?
    var reply: [String: JSONValue]?
    var error: JSONError?

    enum CodingKeys: String, CodingKey {
        case url, uri, file, type, typeReason = "type_reason", bundleID = "bundle_id", accepted, inboxURL = "inbox_url", path
        case handled, sent, waited, dryRun = "dry_run", desktop, reply, error
    }
}

/// `courier drop --json`.
struct DropOutcome: Encodable {
    var delivered: Bool
    var files: [OpenOutcome]?
    /// The FILE that could not be opened.
    var file: String?
    var error: JSONError?
}

/// `courier status --json`.
/// `courier status BUNDLE_ID --json`: the app's `ListApplications` row, its `ps` row (absent when
/// the broker has not run it), and the last lines of its log.
struct AppStatusOutcome: Encodable {
    var application: [String: JSONValue]
    var process: PsCommand.Row?
    var log: [String]
}

struct StatusOutcome: Encodable {
    var running: Bool
    var broker: [String: JSONValue]?
    var applications: [[String: JSONValue]]?
}
