/// Every deliberate difference between CourierURL and liburiparser, in one list: the oracle test
/// and the fuzzer accept a disagreement only when one of these explains it (and then check that
/// the rest of the input agrees), and docs/url-format.md ("CourierURL and liburiparser") shows the
/// same rows — a test keeps the two equal.
///
/// Two kinds: a *verdict* difference (one accepts what the other refuses) is explained only after
/// the oracle has taken the difference out of the input and seen both agree on the rest; a
/// *reading* difference is a way the two present the same component, which ``ComparableComponents``
/// bridges on every comparison.
public enum KnownDifference: String, CaseIterable, Sendable {
    case portAbove65535 = "port above 65535"
    case longerThanLimit = "input over 64 KiB"
    case portNumber = "port number"
    case ipLiteralBrackets = "IP literal brackets"
    case pathSegments = "path as segments"

    /// Whether the two parsers give different verdicts (rather than different readings).
    public var changesVerdict: Bool {
        switch self {
        case .portAbove65535, .longerThanLimit: true
        case .portNumber, .ipLiteralBrackets, .pathSegments: false
        }
    }

    /// What CourierURL does.
    public var courierURL: String {
        switch self {
        case .portAbove65535: "refuses it (`invalid-port` at the port's first digit)"
        case .longerThanLimit: "refuses it (`too-long`; `URIParsingOptions(maximumLength:)` raises the limit)"
        case .portNumber: "`rawPort` as written and `port` as a number: leading zeros dropped, nil for `h:` without digits"
        case .ipLiteralBrackets: "`host` keeps the brackets: `[::1]`"
        case .pathSegments: "`path` is one slice of the input"
        }
    }

    /// What liburiparser does.
    public var uriparser: String {
        switch self {
        case .portAbove65535: "accepts any digits (`port = *DIGIT`)"
        case .longerThanLimit: "no limit"
        case .portNumber: "`portText` only"
        case .ipLiteralBrackets: "`hostText` without them: `::1`"
        case .pathSegments: "a linked list of segments and an `absolutePath` flag"
        }
    }

    /// Why CourierURL does it, or how the comparison bridges it.
    public var reason: String {
        switch self {
        case .portAbove65535:
            "every transport a URL's port reaches is 16-bit; an app must not receive a port it cannot use. The oracle puts `0` in its place and requires agreement"
        case .longerThanLimit:
            "bounds the work an untrusted caller can ask of the broker per URL. The oracle reparses with the limit raised and requires agreement"
        case .portNumber:
            "compared as `rawPort == portText` and `port ==` the decimal value of `portText`"
        case .ipLiteralBrackets:
            "compared without the brackets, with the host kind (reg-name, IPv4, IPv6, IPvFuture)"
        case .pathSegments:
            "compared as the segments joined with `/`, after a `/` when there is an authority or `absolutePath`"
        }
    }
}
