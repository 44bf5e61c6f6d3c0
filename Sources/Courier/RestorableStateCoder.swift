public import CourierNames
public import FoundationEssentials

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
    public static let format: UInt32 = 1
    /// The first bytes of every archive.
    static let magic = Array("COURIER-STATE\n".utf8)

    /// The bytes written to `SavedState/state.archive`: the magic line, then little-endian fields —
    /// format (u32), bundle id, version (u32 length + UTF-8 each), time (f64 seconds since 1970),
    /// value count (u32), and each value as key (u32 length + UTF-8) and bytes (u32 length + bytes).
    /// Binary rather than JSON: reading it is on the relaunch's critical path.
    public func archived(bundleID: String) throws(CourierError) -> [UInt8] {
        var out = Self.magic
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        func append(_ bytes: some Collection<UInt8>) { append(UInt32(bytes.count)); out += bytes }
        append(Self.format)
        append(Array(bundleID.utf8))
        append(Array(bundleVersion.utf8))
        withUnsafeBytes(of: savedAt.timeIntervalSince1970.bitPattern.littleEndian) { out += $0 }
        append(UInt32(values.count))
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            append(Array(key.utf8))
            append(value)
        }
        return out
    }

    /// Reads an archive written by `archived(bundleID:)` for `bundleID`; throws saying why it is
    /// not one (another format, another app, not an archive, cut short).
    public init(archive bytes: [UInt8], bundleID: String) throws(CourierError) {
        var reader = ArchiveReader(bytes: bytes[...])
        guard bytes.starts(with: Self.magic) else {
            throw CourierError(.invalidArguments, "the preserved state is not a Courier state archive; it is ignored")
        }
        reader.bytes = reader.bytes.dropFirst(Self.magic.count)
        let format = try reader.u32()
        guard format == Self.format else {
            throw CourierError(.invalidArguments, "the preserved state has archive format \(format); this library reads format \(Self.format); it is ignored")
        }
        let owner = try reader.string()
        guard owner == bundleID else {
            throw CourierError(.invalidArguments, "the preserved state belongs to \(owner), not \(bundleID); it is ignored")
        }
        bundleVersion = try reader.string()
        savedAt = Date(timeIntervalSince1970: Double(bitPattern: try reader.u64()))
        values = [:]
        for _ in 0..<(try reader.u32()) {
            let key = try reader.string()
            values[key] = Data(try reader.field())
        }
    }

    private struct ArchiveReader {
        var bytes: ArraySlice<UInt8>

        mutating func take(_ count: Int) throws(CourierError) -> ArraySlice<UInt8> {
            guard count <= bytes.count else {
                throw CourierError(.invalidArguments, "the preserved state is cut short (a field needs \(count) bytes, \(bytes.count) are left); it is ignored")
            }
            defer { bytes = bytes.dropFirst(count) }
            return bytes.prefix(count)
        }

        mutating func u32() throws(CourierError) -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func u64() throws(CourierError) -> UInt64 {
            try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func field() throws(CourierError) -> ArraySlice<UInt8> {
            try take(Int(try u32()))
        }

        mutating func string() throws(CourierError) -> String {
            String(decoding: try field(), as: UTF8.self)
        }
    }
}
