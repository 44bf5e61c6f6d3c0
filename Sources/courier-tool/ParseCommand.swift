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
            let report = RefusedURLReport(program: "courier", headline: "invalid URL", reason: error.description, input: url, offset: error.offset)
            FileHandle.standardError.write(Data(report.description.utf8))
            throw ExitCode(RefusedURLReport.exitStatus)
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
            var parts = fields.map { "\(jsonStringLiteral($0.0)):\($0.1.map(jsonStringLiteral) ?? "null")" }
            parts.append("\"port\":\(reference.port.map(String.init) ?? "null")")
            parts += tail.map { "\(jsonStringLiteral($0.0)):\($0.1.map(jsonStringLiteral) ?? "null")" }
            print("{" + parts.joined(separator: ",") + "}")
        } else {
            for (name, value) in fields + [("port", reference.port.map(String.init))] + tail {
                print("\(name.padding(toLength: 9, withPad: " ", startingAt: 0))\(value ?? "(none)")")
            }
            if let kind = reference.hostKind { print("host kind \(kind)") }
        }
    }
}
