/// Chooses without asking: the activity with a given id (a script's or an app's own choice, as
/// `courier share --activity ID`); `NoActivity` when it does not fit the items.
public struct NamedShareChooser: ShareChooser {
    public var id: String
    public var folder: String?
    public var device: String?

    public init(id: String, folder: String? = nil, device: String? = nil) {
        self.id = id
        self.folder = folder
        self.device = device
    }

    public func choose(from activities: [ShareActivity], items: [String]) async throws(CourierError) -> ShareChoice {
        guard let activity = activities.first(where: { $0.id == id }) else {
            throw CourierError(.noActivity, "the activity '\(id)' does not fit these items; the ones that do: \(activities.map(\.id).joined(separator: ", "))")
        }
        return ShareChoice(activity: activity, folder: folder, device: device)
    }
}
