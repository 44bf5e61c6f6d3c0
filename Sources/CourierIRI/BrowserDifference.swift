public import CourierURL

/// Every deliberate difference between Courier's reading of a URL it hands to the desktop and a
/// browser's (WHATWG URL): the one list docs/url-format.md shows as a table ("Handing URLs to the
/// desktop"), which a test keeps equal to this one, and whose examples the same test runs through
/// ``IRI/uri(from:domainNameHost:)`` and ``BrowserReading/check(_:)``.
public struct BrowserDifference: Sendable, Hashable {
    /// What Courier does with such a URL.
    public enum Outcome: Sendable, Hashable {
        /// Refused with this error code.
        case refused(URIError.Code)
        /// Handed on as this URL (the browser's reading, which CourierURL reads the same way).
        case rewritten(String)
        /// Handed on as it is: the browser serialises it otherwise, but means the same host, port
        /// and path.
        case same

        /// The word the table uses.
        public var word: String {
            switch self {
            case .refused: "refused"
            case .rewritten: "rewritten"
            case .same: "same"
            }
        }
    }

    /// The row's name: for a URL refused with an error code of its own, that code's raw value
    /// (`refused(_:example:)`).
    public let name: String
    public let outcome: Outcome
    /// A URL that shows it.
    public let example: String

    /// A row named after the error code that refuses its URL.
    static func refused(_ code: URIError.Code, example: String) -> BrowserDifference {
        BrowserDifference(name: code.rawValue, outcome: .refused(code), example: example)
    }

    public static let all: [BrowserDifference] = [
        .refused(.browserNoAuthority, example: "http:evil.com@good.com"),
        .refused(.browserEmptyHost, example: "http:///example.com/"),
        .refused(.browserNumericHost, example: "http://0x7f.1/"),
        .refused(.browserEscapedHost, example: "http://ex%61mple.com/"),
        .refused(.browserFutureIPLiteral, example: "http://[v1.x]/"),
        .refused(.browserInvalidALabel, example: "http://xn--a.com/"),
        .refused(.browserEscapedDotSegment, example: "http://example.com/a/%2e%2e/b"),
        BrowserDifference(name: "dot-segment", outcome: .rewritten("http://example.com/b"), example: "http://example.com/a/../b"),
        BrowserDifference(name: "backslash", outcome: .refused(.disallowedCharacter), example: "http://example.com\\@evil.com/"),
        BrowserDifference(name: "tab-or-newline", outcome: .refused(.disallowedCharacter), example: "http://exa\tmple.com/"),
        BrowserDifference(name: "space", outcome: .refused(.disallowedCharacter), example: "http://example.com/a b"),
        BrowserDifference(name: "second-at", outcome: .refused(.disallowedCharacter), example: "http://a@b@example.com/"),
        .refused(.uncleanCharacter, example: "http://example.com/a\u{202E}b"),
        .refused(.notIRICharacter, example: "http://example.com/\u{FFFF}"),
        BrowserDifference(name: "uppercase-host", outcome: .same, example: "http://EXAMPLE.com/"),
        BrowserDifference(name: "default-port", outcome: .same, example: "http://example.com:80/"),
        BrowserDifference(name: "query-apostrophe", outcome: .same, example: "http://example.com/?a'b"),
    ]

    /// What Courier does with `url` on its way to the desktop: the IRI mapping, then the check.
    public static func outcome(of url: String) -> Outcome {
        do throws(URIError) {
            let uri = try IRI.uri(from: url).uri
            switch try BrowserReading.check(uri) {
            case .same: return .same
            case .rewritten(let reference, _): return .rewritten(reference.string)
            }
        } catch {
            return .refused(error.code)
        }
    }
}
