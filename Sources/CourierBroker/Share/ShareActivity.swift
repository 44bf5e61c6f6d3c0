public import CourierProtocol

/// One activity a share sheet offers (`ShareActivities`' `a(ssa{sv})`: id, title, details).
public struct ShareActivity: Sendable, Hashable {
    /// The activity types a caller can exclude (`exclude` option, `courier share --exclude`).
    public typealias Kind = ShareActivityKind

    /// Stable within a registry: `open-in:<bundle-id>`, `app:<bundle-id>/<name>`, `copy`,
    /// `save-to`, `nearby`, `link`. `--activity ID` names one.
    public var id: String
    public var title: String
    public var kind: Kind
    /// The receiving app (`open-in`, `app`).
    public var bundleID: String?
    /// The app's activity name (`app`): the `share-activity` option of the delivery.
    public var activityName: String?

    public init(kind: Kind, title: String, bundleID: String? = nil, activityName: String? = nil) {
        self.kind = kind
        self.title = title
        self.bundleID = bundleID
        self.activityName = activityName
        switch kind {
        case .openIn: id = "open-in:\(bundleID ?? "")"
        case .app: id = "app:\(bundleID ?? "")/\(activityName ?? "")"
        default: id = kind.rawValue
        }
    }
}
