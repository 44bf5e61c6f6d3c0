/// One activity a share sheet offers (`ShareActivities`' `a(ssa{sv})`: id, title, details).
public struct ShareActivity: Sendable, Hashable {
    /// The activity types a caller can exclude (`exclude` option, `courier share --exclude`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// "Open in <app>": an app whose document types (or schemes, for URLs) accept every item.
        case openIn = "open-in"
        /// An activity an app declares in `CourierShareActivities`.
        case app
        /// "Copy": text and URLs to the clipboard, where the caller's session has a clipboard tool.
        case copy
        /// "Save to…": the items as files in a folder.
        case saveTo = "save-to"
        /// "Send to a nearby device": `courier nearby send` (LocalSend); files only.
        case nearby
        /// "Share via link": `courier nearby serve` (the download API and a page for a browser); files only.
        case link
    }

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
