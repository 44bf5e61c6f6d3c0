import CourierTypes
/// A refused registry operation: what was asked, why it cannot be done, and what to do.
public struct RegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    // An open set of codes, the idiom InboxError and URIError use too (see InboxError.swift).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let unknownApplication = Code(rawValue: "unknown-application")
        public static let notACandidate = Code(rawValue: "not-a-candidate")
        public static let invalidScheme = Code(rawValue: "invalid-scheme")
        public static let invalidType = Code(rawValue: "invalid-type")
        public static let invalidManifest = Code(rawValue: "invalid-manifest")
        public static let duplicateBundleIdentifier = Code(rawValue: "duplicate-bundle-identifier")
        /// The bundle identifier maps to the D-Bus name of another registered app (`BundleIdentifier`).
        public static let busNameCollision = Code(rawValue: "bus-name-collision")
        public static let stateNotWritable = Code(rawValue: "state-not-writable")
        /// The caller may not make this change (an app registering another app, a takeover of a
        /// running app without `replace`).
        public static let notPermitted = Code(rawValue: "not-permitted")
    }

    public var code: Code
    public var message: String
    /// The manifest's diagnostics when `code` is `invalidManifest`.
    public var diagnostics: [ManifestDiagnostic]

    public init(_ code: Code, _ message: String, diagnostics: [ManifestDiagnostic] = []) {
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
    }

    public var description: String {
        ([message] + diagnostics.map(\.description)).joined(separator: "\n")
    }
}
