import CourierTypes
/// `CFBundleTypeRole`: what the app does with a URL or document (`Editor`, `Viewer`, `Shell`, `None`).
///
/// Courier records the role and shows it; routing decisions use ``HandlerRank``, not the role.
public enum HandlerRole: String, Sendable, Hashable, Codable, CaseIterable {
    case editor = "Editor"
    case viewer = "Viewer"
    case shell = "Shell"
    case none = "None"
}
