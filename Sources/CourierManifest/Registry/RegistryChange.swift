import CourierTypes
/// What a registration, unregistration, reload or preference change did, for consumers that
/// listen for changes (the broker's `RegistryChanged` signal).
public struct RegistryChange: Sendable, Hashable {
    /// Bundle identifiers, sorted.
    public var added: [String] = []
    public var removed: [String] = []
    public var updated: [String] = []
    /// Schemes whose candidates or decision order changed, sorted.
    public var schemes: [String] = []
    /// Types claimed by the changed apps, sorted.
    public var types: [String] = []
    /// The diagnostics produced by this change (new problems in the files that were read).
    public var diagnostics: [ManifestDiagnostic] = []
    /// Who made the change, when it came through `RegistryService` with one.
    public var origin: RegistryChangeOrigin?
    /// Changes read from the manifest folders that were held back (why, per bundle id): a file that
    /// would take a running app's bundle id or scheme (the broker's reload guard).
    public var held: [String: String] = [:]

    public init() {}

    /// Nothing an observer would care about changed.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && updated.isEmpty && schemes.isEmpty && types.isEmpty && diagnostics.isEmpty && held.isEmpty
    }
}
