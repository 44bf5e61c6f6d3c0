/// Where an app's preserved state lives in its container, for the app library (which writes it)
/// and the broker (which hands it back at `CheckIn` and discards it after a crash). See
/// docs/lifecycle.md, "State preservation and restoration".
public enum SavedStateLayout {
    /// Relative to the app's container: `<container>/SavedState/state.archive`.
    public static let folder = "SavedState"
    public static let fileName = "state.archive"
    public static let relativePath = folder + "/" + fileName
    /// Archives larger than this are refused when saving and ignored when restoring: a preserved
    /// state is where the person was, not their data (that belongs in `Documents/`).
    public static let maximumSize = 4 << 20
}

extension CourierLayout {
    /// `containers/<id>/SavedState/state.archive`: where the broker looks for an app's preserved state.
    public func savedStateArchive(for app: BundleIdentifier) -> String {
        Paths.join(container(for: app), SavedStateLayout.relativePath)
    }
}
