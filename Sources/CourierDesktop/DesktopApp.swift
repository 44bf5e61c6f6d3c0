import CourierNames

/// A Courier app as the desktop sees it: one desktop entry that hands the URL schemes the app owns
/// to Courier.
///
/// Validated on creation, so everything it holds is safe to put in a file name, a desktop entry
/// key and a `mimeapps.list` key: invalid values cannot be represented.
public struct DesktopApp: Sendable, Equatable, Hashable {
    /// The app's bundle identifier (`com.acme.todolist`).
    public let bundleIdentifier: String
    /// What desktop pickers show (`CFBundleDisplayName` / `CFBundleName`; the id when empty).
    public let name: String
    /// The schemes the app owns, lowercased, without duplicates, in declaration order.
    public let schemes: [String]

    public init(bundleIdentifier: String, name: String, schemes: [String]) throws(DesktopIntegrationError) {
        guard BundleIdentifier(validating: bundleIdentifier) != nil else {
            throw .invalidBundleIdentifier(bundleIdentifier)
        }
        var seen = Set<String>()
        var normalized: [String] = []
        for scheme in schemes {
            guard URLScheme.isValid(scheme) else { throw .invalidScheme(scheme) }
            let lowered = scheme.lowercased()
            if seen.insert(lowered).inserted { normalized.append(lowered) }
        }
        self.bundleIdentifier = bundleIdentifier
        let trimmed = name.trimmingWhitespace
        self.name = trimmed.isEmpty ? bundleIdentifier : trimmed
        self.schemes = normalized
    }

    /// The desktop file id: `courier-<bundle-id>.desktop`.
    public var desktopFileID: String { "courier-\(bundleIdentifier).desktop" }

    /// The MIME types the entry declares: `x-scheme-handler/<scheme>` for each owned scheme.
    public var mimeTypes: [String] { schemes.map(Self.mimeType(forScheme:)) }

    /// The MIME type under which the desktop lists a scheme's handlers: `x-scheme-handler/<scheme>`
    /// (lowercased).
    public static func mimeType(forScheme scheme: String) -> String { "x-scheme-handler/" + scheme.lowercased() }
}

extension String {
    var trimmingWhitespace: String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view = view.dropFirst() }
        while let last = view.last, last.isWhitespace { view = view.dropLast() }
        return String(view)
    }
}
