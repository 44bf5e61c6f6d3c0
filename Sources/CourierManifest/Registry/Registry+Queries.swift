public import CourierTypes
import Glibc

extension Registry {
    /// One registered app and the schemes the registry routes to it.
    public struct SchemeOwnership: Sendable, Equatable {
        public var bundleIdentifier: String
        public var name: String
        /// The schemes it claims and wins, in declaration order.
        public var schemes: [String]
    }

    /// Each registered app with the schemes it *owns* — those for which the registry chooses it
    /// (user default, rank, first claim) — in bundle-id order: what the desktop is told (desktop
    /// entries, `mimeapps.list`), by courierd and by `courier register` alike. A scheme an app
    /// claims but loses to another app, or that is reserved for the system (`https`, `mailto`, …)
    /// and was refused, is left out, so Courier never becomes the desktop's handler of a scheme it
    /// would not route to that app.
    public func schemeOwnerships() -> [SchemeOwnership] {
        sortedApplications.map { manifest in
            SchemeOwnership(bundleIdentifier: manifest.bundleIdentifier.rawValue, name: manifest.name,
                            schemes: manifest.schemes.filter { handlers(forScheme: $0).chosen?.bundleIdentifier == manifest.bundleIdentifier.rawValue })
        }
    }

    /// The scheme of `text`, lowercased: the part before the first `:` of a URL, or `text` itself
    /// when it has no colon. nil when that is not a valid scheme.
    public static func scheme(fromURLOrScheme text: String) -> String? {
        let candidate: Substring
        if let colon = text.firstIndex(of: ":") { candidate = text[..<colon] } else { candidate = Substring(text) }
        let scheme = candidate.lowercased()
        return Identifiers.isValidScheme(scheme) ? scheme : nil
    }

    /// When `argument` names an existing file (or folder), its identification; nil otherwise
    /// (then the argument is taken as a type identifier). Never blocks on FIFOs or devices.
    public static func identifyFileArgument(_ argument: String, in registry: Registry) -> FileTypeIdentification? {
        var st = stat()
        guard stat(argument, &st) == 0 else { return nil }
        return registry.fileTypes.identify(path: argument)
    }
}
