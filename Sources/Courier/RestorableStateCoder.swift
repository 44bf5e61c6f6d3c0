public import Foundation

/// An app's preserved state: what the delegate encodes before the app is terminated (or when it
/// chooses, `Application.preserveState()`), and decodes on its next launch — the guide's state
/// coder (`application:willEncodeRestorableStateWithCoder:` / `…didDecode…`), with `Codable` values.
///
/// It carries the version of the app that wrote it (`UIApplicationStateRestorationBundleVersionKey`)
/// and when (`…TimestampKey`), so `shouldRestoreApplicationState` can refuse an archive from an
/// older version.
public struct RestorableStateCoder: Sendable, Hashable {
    /// `Application.version` of the app that wrote the archive.
    public let bundleVersion: String
    /// When the archive was written.
    public let savedAt: Date
    private var values: [String: Data]

    public init(bundleVersion: String, savedAt: Date = Date()) {
        self.bundleVersion = bundleVersion
        self.savedAt = savedAt
        self.values = [:]
    }

    /// Stores `value` (JSON-encoded) under `key`.
    public mutating func encode<Value: Encodable>(_ value: Value, forKey key: String) throws(CourierError) {
        do {
            values[key] = try JSONEncoder().encode(value)
        } catch {
            throw CourierError(.invalidArguments, "cannot encode the restorable state '\(key)': \(error)")
        }
    }

    /// Stores raw bytes under `key`.
    public mutating func encode(bytes: [UInt8], forKey key: String) {
        values[key] = Data(bytes)
    }

    /// The value under `key`; nil when there is none. Throws when it is not a `Value`.
    public func decode<Value: Decodable>(_ type: Value.Type, forKey key: String) throws(CourierError) -> Value? {
        guard let data = values[key] else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw CourierError(.invalidArguments, "the restorable state '\(key)' is not a \(Value.self): \(error)")
        }
    }

    /// The bytes under `key`.
    public func bytes(forKey key: String) -> [UInt8]? {
        values[key].map { [UInt8]($0) }
    }

    public var keys: [String] { values.keys.sorted() }

    // MARK: Archive

    /// The archive format this library writes; an archive of another format is refused.
    public static let format = 1

    private struct Archive: Codable {
        var format: Int
        var bundleID: String
        var bundleVersion: String
        var savedAt: Date
        var values: [String: Data]
    }

    /// The bytes written to `SavedState/state.archive` (JSON: format, bundle id, version, time, values).
    public func archived(bundleID: String) throws(CourierError) -> [UInt8] {
        do {
            return [UInt8](try JSONEncoder().encode(Archive(format: Self.format, bundleID: bundleID, bundleVersion: bundleVersion, savedAt: savedAt, values: values)))
        } catch {
            throw CourierError(.invalidArguments, "cannot archive the restorable state: \(error)")
        }
    }

    /// Reads an archive written by `archived(bundleID:)` for `bundleID`; throws saying why it is
    /// not one (another format, another app, not an archive).
    public init(archive bytes: [UInt8], bundleID: String) throws(CourierError) {
        let archive: Archive
        do {
            archive = try JSONDecoder().decode(Archive.self, from: Data(bytes))
        } catch {
            throw CourierError(.invalidArguments, "the preserved state is not a Courier state archive (\(error)); it is ignored")
        }
        guard archive.format == Self.format else {
            throw CourierError(.invalidArguments, "the preserved state has archive format \(archive.format); this library reads format \(Self.format); it is ignored")
        }
        guard archive.bundleID == bundleID else {
            throw CourierError(.invalidArguments, "the preserved state belongs to \(archive.bundleID), not \(bundleID); it is ignored")
        }
        self.bundleVersion = archive.bundleVersion
        self.savedAt = archive.savedAt
        self.values = archive.values
    }
}
