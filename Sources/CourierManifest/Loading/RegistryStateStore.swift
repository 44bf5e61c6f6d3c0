import CourierTypes
import CourierNames
import Foundation

/// Reads and writes the registry's persistent state in a folder (normally
/// `$XDG_CONFIG_HOME/courier`): `defaults.json` (the user's default handlers), `claims.json`
/// (the first-claim order) and `registrations.json` (the manifests registered over D-Bus from
/// outside the manifest folders, by absolute path, so that they survive a restart). Writes are atomic (temporary file, then rename); a write merges with
/// what is on disk so that the broker and the offline CLI never lose each other's claims.
public struct RegistryStateStore: Sendable {
    public var folder: String

    public init(folder: String) { self.folder = folder }

    public var defaultsPath: String { Paths.join(folder, "defaults.json") }
    public var claimsPath: String { Paths.join(folder, "claims.json") }
    public var registrationsPath: String { Paths.join(folder, "registrations.json") }

    private struct RegistrationsFile: Codable {
        /// Absolute manifest paths, in the order they were registered.
        var manifests: [String]
    }

    private struct DefaultsFile: Codable {
        var schemes: [String: String]?
        var types: [String: String]?
        /// Desktop applications chosen as defaults (desktop file ids).
        var desktopSchemes: [String: String]?
        var desktopTypes: [String: String]?
        /// Apps taken out of routing (`courier disable`).
        var disabled: [String]?

        enum CodingKeys: String, CodingKey {
            case schemes, types, disabled
            case desktopSchemes = "desktop_schemes"
            case desktopTypes = "desktop_types"
        }
    }

    /// The stored state; a missing file is empty state, a damaged one is empty state plus a diagnostic.
    public func load() -> (preferences: RegistryPreferences, claimOrder: ClaimOrder, registeredPaths: [String], diagnostics: [ManifestDiagnostic]) {
        var diagnostics: [ManifestDiagnostic] = []
        var preferences = RegistryPreferences()
        var claims = ClaimOrder()
        if let file: DefaultsFile = read(defaultsPath, &diagnostics) {
            preferences = RegistryPreferences(
                schemeDefaults: file.schemes ?? [:], typeDefaults: file.types ?? [:],
                desktopSchemeDefaults: file.desktopSchemes ?? [:], desktopTypeDefaults: file.desktopTypes ?? [:],
                disabled: Set(file.disabled ?? []))
        }
        if let file: ClaimOrder = read(claimsPath, &diagnostics) { claims = file }
        let registrations: RegistrationsFile? = read(registrationsPath, &diagnostics)
        return (preferences, claims, (registrations?.manifests ?? []).filter { $0.hasPrefix("/") }, diagnostics)
    }

    private func read<T: Decodable>(_ path: String, _ diagnostics: inout [ManifestDiagnostic]) -> T? {
        switch SafeFileReader.read(path: path, limit: 64 << 20) {
        case .failure(.unreadable(let code, let reason)):
            if code != ENOENT {
                diagnostics.append(ManifestDiagnostic(file: path, keyPath: "", message: "cannot read Courier's state: \(reason); check its permissions", severity: .warning, code: .unreadable))
            }
            return nil
        case .failure:
            diagnostics.append(ManifestDiagnostic(file: path, keyPath: "", message: "Courier's state file is not a regular file or is too large; remove it", severity: .warning, code: .notRegularFile))
            return nil
        case .success(let bytes):
            do {
                return try JSONDecoder().decode(T.self, from: Data(bytes))
            } catch {
                diagnostics.append(ManifestDiagnostic(file: path, keyPath: "", message: "Courier's state file is damaged (\(error)); it is ignored — remove it to start afresh", severity: .warning, code: .invalidValue))
                return nil
            }
        }
    }

    /// Writes the user's defaults.
    public func save(preferences: RegistryPreferences) throws(RegistryError) {
        try write(DefaultsFile(
            schemes: preferences.schemeDefaults, types: preferences.typeDefaults,
            desktopSchemes: preferences.desktopSchemeDefaults.isEmpty ? nil : preferences.desktopSchemeDefaults,
            desktopTypes: preferences.desktopTypeDefaults.isEmpty ? nil : preferences.desktopTypeDefaults,
            disabled: preferences.disabled.isEmpty ? nil : preferences.disabled.sorted()), to: defaultsPath)
    }

    /// Writes the manifests registered from outside the manifest folders.
    public func save(registeredPaths: [String]) throws(RegistryError) {
        try write(RegistrationsFile(manifests: registeredPaths), to: registrationsPath)
    }

    /// Merges `claimOrder` into the stored order (stored claims first, `removed` apps dropped),
    /// writes it if it changed, and returns the merged order.
    public func save(claimOrder: ClaimOrder, removing removed: Set<String>) throws(RegistryError) -> ClaimOrder {
        var ignored: [ManifestDiagnostic] = []
        let stored: ClaimOrder = read(claimsPath, &ignored) ?? ClaimOrder()
        let merged = claimOrder.merged(over: stored, removing: removed)
        if merged != stored { try write(merged, to: claimsPath) }
        return merged
    }

    private func write<T: Encodable>(_ value: T, to path: String) throws(RegistryError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(value).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw RegistryError(.stateNotWritable, "cannot write \(path): \(ManifestLoader.describe(error)); check that \(folder) is writable")
        }
    }
}
