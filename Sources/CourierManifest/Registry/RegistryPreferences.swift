import CourierTypes
/// The user's choices: default handlers per scheme and per type. Persisted as
/// `$XDG_CONFIG_HOME/courier/defaults.json` by ``RegistryStateStore``.
///
/// Choosing an app as the default for a scheme that belongs to the system (`http`, `mailto`, …)
/// is also the explicit permission for that app's claim on it; nothing else allows such a claim.
///
/// A default may instead be a desktop application (a desktop file id, `firefox.desktop`): then no
/// Courier app is chosen for that scheme or type, and Courier hands it to the desktop, whose
/// `mimeapps.list` names that application. A key has a Courier default or a desktop one, never both.
public struct RegistryPreferences: Sendable, Hashable, Codable {
    /// Lowercased scheme → bundle identifier.
    public var schemeDefaults: [String: String]
    /// Uniform type identifier → bundle identifier; applies to the type and the types conforming to it.
    public var typeDefaults: [String: String]
    /// Bundle identifiers the user took out of routing (`courier disable`): still registered, but
    /// never chosen for a scheme or a type, and refused when named.
    public var disabled: Set<String>

    /// Lowercased scheme → desktop file id.
    public var desktopSchemeDefaults: [String: String]
    /// Uniform type identifier → desktop file id; applies as `typeDefaults` does.
    public var desktopTypeDefaults: [String: String]

    public init(schemeDefaults: [String: String] = [:], typeDefaults: [String: String] = [:],
                desktopSchemeDefaults: [String: String] = [:], desktopTypeDefaults: [String: String] = [:], disabled: Set<String> = []) {
        self.schemeDefaults = schemeDefaults
        self.typeDefaults = typeDefaults
        self.disabled = disabled
        self.desktopSchemeDefaults = desktopSchemeDefaults
        self.desktopTypeDefaults = desktopTypeDefaults
    }

    /// The schemes whose default (Courier's or the desktop's) differs between `self` and `other`.
    func changedSchemes(_ other: RegistryPreferences) -> Set<String> {
        Self.changedKeys([schemeDefaults, desktopSchemeDefaults], [other.schemeDefaults, other.desktopSchemeDefaults])
    }

    /// The types whose default (Courier's or the desktop's) differs between `self` and `other`.
    func changedTypes(_ other: RegistryPreferences) -> Set<String> {
        Self.changedKeys([typeDefaults, desktopTypeDefaults], [other.typeDefaults, other.desktopTypeDefaults])
    }

    private static func changedKeys(_ a: [[String: String]], _ b: [[String: String]]) -> Set<String> {
        var keys = Set<String>()
        for (x, y) in zip(a, b) {
            keys.formUnion(Set(x.keys).union(y.keys).filter { x[$0] != y[$0] })
        }
        return keys
    }
}
