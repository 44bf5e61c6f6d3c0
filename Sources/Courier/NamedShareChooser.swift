/// Chooses without asking: the activity with a given id (a script's or an app's own choice, as
/// `courier share --activity ID`); `NoActivity` when it does not fit the items. "Save to…" without
/// a folder asks `folders` (the desktop portal's folder dialog) for one, when given.
public struct NamedShareChooser: ShareChooser {
    public var id: String
    public var folder: String?
    public var device: String?
    public var folders: PortalFolderChooser?

    public init(id: String, folder: String? = nil, device: String? = nil, folders: PortalFolderChooser? = nil) {
        self.id = id
        self.folder = folder
        self.device = device
        self.folders = folders
    }

    public func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice {
        guard let activity = activities.first(where: { $0.id == id }) else {
            throw CourierError(.noActivity, "the activity '\(id)' does not fit these items; the ones that do: \(activities.map(\.id).joined(separator: ", "))")
        }
        if activity.kind == ShareActivity.saveTo, folder == nil, let folders {
            return ShareChoice(activity: activity, folder: try await folders.chooseFolder(for: items), device: device)
        }
        return ShareChoice(activity: activity, folder: folder, device: device)
    }
}
