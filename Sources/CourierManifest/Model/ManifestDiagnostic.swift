import CourierTypes
/// A problem found in a manifest: which file, which key, what is wrong and what to do.
///
/// Loading never stops at a diagnostic: an `error` means the manifest (or the file) was not
/// loaded, a `warning` means one declaration was dropped and the rest of the manifest was kept.
public struct ManifestDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// Whether the manifest was refused or only part of it.
    public enum Severity: String, Sendable, Hashable, Codable {
        case error
        case warning
    }

    /// A machine-readable kind. Open (a struct) so new kinds can be added without breaking callers.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let missingBundleIdentifier = Code(rawValue: "missing-bundle-identifier")
        public static let invalidBundleIdentifier = Code(rawValue: "invalid-bundle-identifier")
        public static let unresolvedBuildVariable = Code(rawValue: "unresolved-build-variable")
        public static let invalidScheme = Code(rawValue: "invalid-scheme")
        public static let wrongType = Code(rawValue: "wrong-type")
        public static let invalidValue = Code(rawValue: "invalid-value")
        public static let duplicateScheme = Code(rawValue: "duplicate-scheme")
        public static let duplicateBundleIdentifier = Code(rawValue: "duplicate-bundle-identifier")
        /// The bundle identifier maps to the D-Bus name of another registered app (`BundleIdentifier`).
        public static let busNameCollision = Code(rawValue: "bus-name-collision")
        public static let notPropertyList = Code(rawValue: "not-a-property-list")
        public static let unreadable = Code(rawValue: "unreadable")
        public static let tooLarge = Code(rawValue: "too-large")
        public static let notRegularFile = Code(rawValue: "not-a-regular-file")
        /// A file name in a manifest folder that is not UTF-8: not loaded (apps are known by the
        /// path of their manifest, which is text).
        public static let invalidFileName = Code(rawValue: "invalid-file-name")
        public static let reservedScheme = Code(rawValue: "reserved-scheme")
        public static let schemeConflict = Code(rawValue: "scheme-conflict")
        public static let keptLastGoodVersion = Code(rawValue: "kept-last-good-version")
        public static let invalidURLFormat = Code(rawValue: "invalid-url-format")
        public static let typeConflict = Code(rawValue: "type-conflict")
        public static let documentTypeConflict = Code(rawValue: "document-type-conflict")
        public static let missingFolder = Code(rawValue: "missing-folder")
        /// Document types inferred from the legacy `CFBundleTypeExtensions` / `CFBundleTypeMIMETypes`.
        public static let inferredDocumentType = Code(rawValue: "inferred-document-type")
        /// A `CourierAllowedCallers` / `CourierAllowedDropCallers` that cannot be read as a rule
        /// (an error: guessing would open the app to everyone or cut its callers off).
        public static let invalidCallerRule = Code(rawValue: "invalid-caller-rule")
        /// A manifest in a watched folder that would take a running app's bundle id or scheme: held
        /// back until the app no longer runs, or `courier register --replace` confirms it.
        public static let heldRegistryChange = Code(rawValue: "held-registry-change")
        /// A string with a control or bidirectional formatting character (`CleanText`): ignored, so
        /// that it never reaches the bus or a terminal.
        public static let uncleanText = Code(rawValue: "unclean-text")
        /// A `UILaunchImageFile` that is not a base name, or a launch image that is missing, not a
        /// regular file, too large or not a PNG: the app is registered and launches without it.
        public static let invalidLaunchImage = Code(rawValue: "invalid-launch-image")
        /// An identifier read without the white space around it.
        public static let trimmedWhitespace = Code(rawValue: "trimmed-whitespace")
    }

    /// The file the problem is in (absolute path).
    public var file: String
    /// Where in the property list: `CFBundleURLTypes[0].CFBundleURLSchemes[1]`; empty for the whole file.
    public var keyPath: String
    /// What is wrong and what to do, in one or two sentences.
    public var message: String
    public var severity: Severity
    public var code: Code

    public init(file: String, keyPath: String, message: String, severity: Severity, code: Code) {
        self.file = file
        self.keyPath = keyPath
        self.message = message
        self.severity = severity
        self.code = code
    }

    /// `file: keyPath: severity: message`, the way compilers print.
    public var description: String {
        let key = keyPath.isEmpty ? "" : " \(keyPath):"
        return "\(file):\(key) \(severity.rawValue): \(message)"
    }
}
