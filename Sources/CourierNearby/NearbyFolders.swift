public import CourierNames

/// Where Nearby keeps its files, by the one HOME/XDG rule of Courier (`CourierLayout`): its
/// identity and trusted senders in the user's Courier config, uploads being received in a staging
/// folder under the data home (the file system of the Inbox, so the broker's copy can be a reflink
/// where the file system has them).
public struct NearbyFolders: Sendable {
    public var layout: CourierLayout

    public init(layout: CourierLayout = .current()) {
        self.layout = layout
    }

    /// `$XDG_CONFIG_HOME/courier/nearby` (0700): `certificate.pem`, `key.pem`, `trusted.json`.
    public var config: String { layout.configFolder + "/nearby" }
    /// `$XDG_DATA_HOME/courier/nearby-staging` (0700): uploads until the broker has delivered them.
    public var staging: String { layout.dataHome + "/courier/nearby-staging" }
}
