import ArgumentParser
import CourierURL
import Foundation

/// `courier parse URL [--json]`: validate a URL with the RFC 3986 parser and print its raw
/// components. Exit 65 (EX_DATAERR) with a positioned error for an invalid URL.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Validate a URL (RFC 3986) and print its components.",
        discussion: """
            Components are printed raw (percent-encoded as given); the scheme is lowercased. \
            An invalid URL exits with status 65 and says what is wrong, at which byte offset, and \
            what to do. Put -- before a URL that starts with '-'.
            """)

    @Argument(help: "The URL or URI reference to check.")
    var url: String

    @Flag(help: "Print the components as one JSON object.")
    var json = false

    func run() throws {
        let reference: URIReference
        do {
            reference = try URIReference(url)
        } catch {
            FileHandle.standardError.write(Data(PositionedMessage.render(error: error.description, input: url, offset: error.offset).utf8))
            throw ExitCode(65)
        }
        let fields: [(String, String?)] = [
            ("scheme", reference.scheme),
            ("user", reference.user.map(String.init)),
            ("password", reference.password.map(String.init)),
            ("host", reference.host.map(String.init)),
        ]
        let tail: [(String, String?)] = [
            ("path", String(reference.path)),
            ("query", reference.query.map(String.init)),
            ("fragment", reference.fragment.map(String.init)),
        ]
        if json {
            var parts = fields.map { "\(JSONText.string($0.0)):\($0.1.map(JSONText.string) ?? "null")" }
            parts.append("\"port\":\(reference.port.map(String.init) ?? "null")")
            parts += tail.map { "\(JSONText.string($0.0)):\($0.1.map(JSONText.string) ?? "null")" }
            print("{" + parts.joined(separator: ",") + "}")
        } else {
            for (name, value) in fields + [("port", reference.port.map(String.init))] + tail {
                print("\(name.padding(toLength: 9, withPad: " ", startingAt: 0))\(value ?? "(none)")")
            }
            if let kind = reference.hostKind { print("host kind \(kind)") }
        }
    }
}

/// A message followed, when the input is short printable ASCII, by the input and a caret under
/// the offending byte.
enum PositionedMessage {
    static func render(error: String, input: String, offset: Int) -> String {
        var text = "courier: invalid URL: \(error)\n"
        let bytes = Array(input.utf8)
        if bytes.count <= 160, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            text += "  \(input)\n  \(String(repeating: " ", count: min(offset, bytes.count)))^\n"
        }
        return text
    }
}

/// JSON string literals without Foundation's key reordering.
enum JSONText {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
