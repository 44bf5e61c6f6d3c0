/// The constants of the LocalSend protocol (https://github.com/localsend/protocol): version 2.1
/// (HTTPS, PIN, multicast discovery), and the v1 routes beside it, as the reference app serves both.
public enum NearbyProtocol {
    /// The version this implementation announces: 2.1, the protocol's latest (`pin`, 401/429).
    public static let version = "2.1"
    /// The version a v1 peer announces (or is taken to have when it announces none).
    public static let legacyVersion = "1.0"
    /// The default TCP (HTTPS) and UDP (multicast) port.
    public static let defaultPort = 53317
    /// The default multicast group (224.0.0.0/24: some Android devices refuse other groups).
    public static let multicastGroup = "224.0.0.167"
    /// The `protocol` values of a device description.
    public static let https = "https", http = "http"

    /// The two generations of the HTTP API. v1 has no sessions: `send-request` answers only the
    /// tokens, `send` and `cancel` name no session (there is only ever one).
    public enum API: String, Sendable, CaseIterable {
        case v1, v2

        /// Every route of this generation lives under this prefix.
        public var prefix: String { "/api/localsend/\(rawValue)/" }

        /// The generation a device speaks, by the `version` it announces ("1.0", or none in v1).
        public init(announcedVersion: String?) {
            self = (announcedVersion ?? NearbyProtocol.legacyVersion).hasPrefix("1.") ? .v1 : .v2
        }
    }

    /// The routes this receiver answers.
    public enum Route: String, Sendable, CaseIterable {
        case info, register
        case prepareUpload = "prepare-upload"
        case upload, cancel

        /// The route's last path component in `api` (v1 named two of them otherwise).
        public func name(in api: API) -> String {
            switch (self, api) {
            case (.prepareUpload, .v1): "send-request"
            case (.upload, .v1): "send"
            default: rawValue
            }
        }

        public func path(_ api: API = .v2) -> String { api.prefix + name(in: api) }

        /// The route and generation of a request path (query already removed), or nil.
        public static func parse(_ path: String) -> (Route, API)? {
            for api in API.allCases where path.hasPrefix(api.prefix) {
                let name = path.dropFirst(api.prefix.count)
                if let route = allCases.first(where: { $0.name(in: api) == name }) { return (route, api) }
            }
            return nil
        }

        /// The v2 path (what most callers mean).
        public var path: String { path(.v2) }
    }
}
