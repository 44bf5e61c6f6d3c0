import CourierTypes
/// The user's choices: default handlers per scheme and per type. Persisted as
/// `$XDG_CONFIG_HOME/courier/defaults.json` by ``RegistryStateStore``.
///
/// Choosing an app as the default for a scheme that belongs to the system (`http`, `mailto`, …)
/// is also the explicit permission for that app's claim on it; nothing else allows such a claim.
public struct RegistryPreferences: Sendable, Hashable, Codable {
    /// Lowercased scheme → bundle identifier.
    public var schemeDefaults: [String: String]
    /// Uniform type identifier → bundle identifier; applies to the type and the types conforming to it.
    public var typeDefaults: [String: String]
    /// Bundle identifiers the user took out of routing (`courier disable`): still registered, but
    /// never chosen for a scheme or a type, and refused when named.
    public var disabled: Set<String>

    public init(schemeDefaults: [String: String] = [:], typeDefaults: [String: String] = [:], disabled: Set<String> = []) {
        self.schemeDefaults = schemeDefaults
        self.typeDefaults = typeDefaults
        self.disabled = disabled
    }
}
