import ArgumentParser
import CourierIRI
import CourierURL
import Foundation

/// `courier parse URL [--json]`: map an IRI to its URI (RFC 3987), validate that with the RFC 3986
/// parser and print the raw components, the URI and the IRI display form. Exit 65 (EX_DATAERR)
/// with a positioned error, and the URL that would be accepted when there is one, for an invalid URL.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Validate a URL (RFC 3986, or an IRI: RFC 3987) and print its components.",
        discussion: """
            An IRI (characters outside ASCII, e.g. todolist://www.acme.com?Café or https://例え.jp/) is \
            first mapped to its URI: characters percent-encoded as UTF-8, the host names of http, https, \
            ftp, ws, wss and mailto converted with IDNA. Components are printed raw (percent-encoded as \
            in the URI); the scheme is lowercased; uri is the URI, iri the form to show a person. \
            An invalid URL exits with status 65 and says what is wrong, at which byte offset of the \
            URL as given, what to do, and the URL that would be accepted when percent-encoding mends it. \
            Put -- before a URL that starts with '-'.
            """)

    @Argument(help: "The URL or URI reference to check.")
    var url: String

    @Flag(help: "Print the components as one JSON object.")
    var json = false

    func run() throws {
        let reference: URIReference
        do {
            reference = try IRI.uri(from: url).uri
        } catch {
            let report = RefusedURLReport(program: "courier", headline: "invalid URL", reason: error.description, input: url, offset: error.offset)
            let accepted = IRI.suggestion(for: url).map { "courier: the URL it would accept: \($0)\n" } ?? ""
            FileHandle.standardError.write(Data((report.description + accepted).utf8))
            throw ExitCode(RefusedURLReport.exitStatus)
        }
        let forms: [(String, String?)] = [("uri", reference.string), ("iri", IRI.displayForm(of: reference))]
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
            parts += (tail + forms).map { "\(jsonStringLiteral($0.0)):\($0.1.map(jsonStringLiteral) ?? "null")" }
            print("{" + parts.joined(separator: ",") + "}")
        } else {
            for (name, value) in fields + [("port", reference.port.map(String.init))] + tail + forms {
                print("\(name.padding(toLength: 9, withPad: " ", startingAt: 0))\(value ?? "(none)")")
            }
            if let kind = reference.hostKind { print("host kind \(kind)") }
        }
    }
}
