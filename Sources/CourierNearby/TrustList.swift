import Foundation

/// The senders the user lets in without asking (`courier nearby trust/untrust/list`), kept in
/// `trusted.json` in the Nearby config folder: one entry per fingerprint, with the alias the user
/// knew it by. What a match proves depends on how the fingerprint was learnt (docs/nearby.md).
public struct TrustList: Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// Lowercase hex SHA-256 (64 characters); compared without case.
        public var fingerprint: String
        public var alias: String
    }

    public private(set) var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    public func contains(_ fingerprint: String) -> Bool {
        entries.contains { $0.fingerprint == fingerprint.lowercased() }
    }

    /// A fingerprint as users paste it: hex with or without colons, any case → 64 lowercase hex
    /// digits; anything else is refused with what is expected.
    public static func normalized(_ fingerprint: String) throws(NearbyError) -> String {
        let hex = fingerprint.lowercased().filter { $0 != ":" }
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
            throw .invalid("\(fingerprint.debugDescription) is not a SHA-256 fingerprint; give the 64 hex digits the other device shows (courier nearby scan prints them)")
        }
        return hex
    }

    /// Adds or renames; returns whether the fingerprint was new.
    @discardableResult
    public mutating func trust(_ fingerprint: String, alias: String) throws(NearbyError) -> Bool {
        let hex = try Self.normalized(fingerprint)
        if let index = entries.firstIndex(where: { $0.fingerprint == hex }) {
            entries[index].alias = alias
            return false
        }
        entries.append(Entry(fingerprint: hex, alias: alias))
        return true
    }

    /// Removes by fingerprint or by alias; returns what was removed.
    public mutating func untrust(_ fingerprintOrAlias: String) -> [Entry] {
        let hex = (try? Self.normalized(fingerprintOrAlias)) ?? ""
        let removed = entries.filter { $0.fingerprint == hex || $0.alias == fingerprintOrAlias }
        entries.removeAll { $0.fingerprint == hex || $0.alias == fingerprintOrAlias }
        return removed
    }

    // MARK: - The file

    public static func load(from path: String) throws(NearbyError) -> TrustList {
        guard let data = FileManager.default.contents(atPath: path) else { return TrustList() }
        do {
            return TrustList(entries: try JSONDecoder().decode([Entry].self, from: data))
        } catch {
            throw NearbyError(500, "\(path) is not a list of trusted senders (\(error)); fix it or remove it (courier nearby trust adds entries again)")
        }
    }

    /// Writes atomically (a new file renamed over the old one), mode 0600.
    public func save(to path: String) throws(NearbyError) {
        do {
            let folder = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(entries).write(to: URL(fileURLWithPath: path), options: .atomic)
            chmod(path, 0o600)
        } catch {
            throw NearbyError(500, "cannot write \(path): \(error)")
        }
    }
}
