import CourierProtocol

/// An activity the broker offers for a set of items (`Broker1.ShareActivities`, docs/share.md).
public struct ShareActivity: Sendable, Hashable, Codable {
    /// `open-in:<bundle-id>`, `app:<bundle-id>/<name>`, `copy`, `save-to`, `nearby` or `link`.
    public var id: String
    /// What the sheet shows ("Open in Todo List", an app's own title, "Copy", …).
    public var title: String
    /// `open-in`, `app`, `copy`, `save-to`, `nearby` or `link`: what `excluding` names.
    public var kind: String
    /// The receiving app (`open-in`, `app`).
    public var bundleID: String?
    /// The app's own activity (`app`): sent to it as the `share-activity` option.
    public var activityName: String?

    public init(id: String, title: String, kind: String, bundleID: String? = nil, activityName: String? = nil) {
        self.id = id
        self.title = title
        self.kind = kind
        self.bundleID = bundleID
        self.activityName = activityName
    }

    /// The kind (and id) of "Save to…", the activity that needs a folder.
    public static let saveTo = ShareActivityKind.saveTo.rawValue
    /// The activity kinds (`kind`), the values `excluding` takes besides ids.
    public static let kinds = ShareActivityKind.allCases.map(\.rawValue)
}

/// What the person chose in a sheet: an activity, with the folder for "Save to…" and the device
/// for a nearby send (nil: `courier nearby send` looks for one itself).
public struct ShareChoice: Sendable, Hashable {
    public var activity: ShareActivity
    public var folder: String?
    public var device: String?

    public init(activity: ShareActivity, folder: String? = nil, device: String? = nil) {
        self.activity = activity
        self.folder = folder
        self.device = device
    }
}

/// How a share ended (the errors are the refusals: `NoActivity`, `Dismissed`, `NobodyToAsk`,
/// `Declined`, `InvalidFile`, …).
public struct ShareOutcome: Sendable, Hashable, Codable {
    /// The activity that ran.
    public var activity: ShareActivity
    /// Where the items went: Inbox URLs of a drop, the URLs opened, the files saved, the device.
    public var delivered: [String]
    /// What the receiving app answered (`open-in`, `app`), or the tool's exit (others).
    public var handled: Bool

    public init(activity: ShareActivity, delivered: [String], handled: Bool) {
        self.activity = activity
        self.delivered = delivered
        self.handled = handled
    }
}

/// Asks the person to choose among activities. A chooser throws `Dismissed` when they decline.
public protocol ShareChooser: Sendable {
    func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice
}
