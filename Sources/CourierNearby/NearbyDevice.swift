import CourierNames

/// A LocalSend device as the protocol describes it: the body of a multicast announcement, of
/// `register` and `info`, and the `info` of `prepare-upload` (protocol v2, sections 3 and 4.1).
///
/// Everything here is what the peer *says* about itself. Only `fingerprint`, when it is the
/// SHA-256 of a certificate this side saw in a TLS handshake, is more than a claim
/// (docs/nearby.md, "What each consent mode proves").
public struct NearbyDevice: Codable, Sendable, Hashable {
    public var alias: String
    /// The protocol version, "major.minor" ("2.0", "2.1", "2.2").
    public var version: String?
    public var deviceModel: String?
    /// mobile | desktop | web | headless | server; unknown values are kept as sent.
    public var deviceType: String?
    /// With HTTPS: the SHA-256 of the device's DER certificate in hex (the reference app's is
    /// uppercase; compare without case). v1 senders may send none: empty.
    public var fingerprint: String
    public var port: Int?
    /// "http" or "https".
    public var `protocol`: String?
    public var download: Bool?
    /// In a multicast message: true for an announcement (answer it), false for an answer.
    public var announce: Bool?

    public init(alias: String, version: String? = NearbyProtocol.version, deviceModel: String? = nil, deviceType: String? = "desktop",
                fingerprint: String, port: Int? = nil, protocol: String? = NearbyProtocol.https, download: Bool? = false, announce: Bool? = nil) {
        self.alias = alias
        self.version = version
        self.deviceModel = deviceModel
        self.deviceType = deviceType
        self.fingerprint = fingerprint
        self.port = port
        self.protocol = `protocol`
        self.download = download
        self.announce = announce
    }

    /// The alias as a terminal may show it: every character that could act on the terminal or
    /// reorder the line escaped (`\u{1B}`). Any peer on the network chooses its alias.
    public var printableAlias: String { CleanText.escaped(alias) }

    private enum CodingKeys: String, CodingKey {
        case alias, version, deviceModel, deviceType, fingerprint, port, `protocol`, download, announce
    }

    /// As encoded, except that a missing `fingerprint` is empty: v1's `send-request` and `info`
    /// describe a device without one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alias = try container.decode(String.self, forKey: .alias)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        deviceModel = try container.decodeIfPresent(String.self, forKey: .deviceModel)
        deviceType = try container.decodeIfPresent(String.self, forKey: .deviceType)
        fingerprint = try container.decodeIfPresent(String.self, forKey: .fingerprint) ?? ""
        port = try container.decodeIfPresent(Int.self, forKey: .port)
        `protocol` = try container.decodeIfPresent(String.self, forKey: .protocol)
        download = try container.decodeIfPresent(Bool.self, forKey: .download)
        announce = try container.decodeIfPresent(Bool.self, forKey: .announce)
    }

    /// Whether the device said it serves plain HTTP (`"protocol": "http"`); HTTPS otherwise.
    public var servesPlainHTTP: Bool { `protocol`?.lowercased() == NearbyProtocol.http }

    /// A copy with `announce` set (multicast) or cleared (HTTP bodies).
    public func announcing(_ announce: Bool?) -> NearbyDevice {
        var copy = self
        copy.announce = announce
        return copy
    }
}
