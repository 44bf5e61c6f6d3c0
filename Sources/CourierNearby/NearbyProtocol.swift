/// The constants of LocalSend protocol v2 (https://github.com/localsend/protocol).
public enum NearbyProtocol {
    /// The version this implementation speaks (HTTPS, PIN, multicast discovery).
    public static let version = "2.1"
    /// The default TCP (HTTPS) and UDP (multicast) port.
    public static let defaultPort = 53317
    /// The default multicast group (224.0.0.0/24: some Android devices refuse other groups).
    public static let multicastGroup = "224.0.0.167"
    /// Every route lives under this prefix.
    public static let apiPrefix = "/api/localsend/v2/"

    /// The routes this receiver answers.
    public enum Route: String, Sendable {
        case info, register
        case prepareUpload = "prepare-upload"
        case upload, cancel

        /// The route of a request path (query already removed), or nil for anything else.
        public init?(path: String) {
            guard path.hasPrefix(NearbyProtocol.apiPrefix) else { return nil }
            self.init(rawValue: String(path.dropFirst(NearbyProtocol.apiPrefix.count)))
        }

        public var path: String { NearbyProtocol.apiPrefix + rawValue }
    }
}
