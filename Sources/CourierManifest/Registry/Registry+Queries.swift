import CourierTypes
public import CourierNames

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
}

/// A file's type as a drop of it would get it, and the apps that take it: what the broker's
/// `HandlersForFile` answers, and what `courier handlers --type` prints when no broker runs — one
/// decision, so the two cannot disagree.
public struct FileHandlers: Sendable {
    /// The file's uniform type identifier (canonical).
    public var type: String
    /// Why the file has that type ("as asked", "by its name", libmagic's reason…).
    public var reason: String
    /// The desktop's MIME type for it: the one the content or the sender gave, else the type's own.
    public var mimeType: String?
    /// The candidates for the type; each carries the declared content type it matched.
    public var resolution: HandlerResolution

    /// The eligible apps, the chosen one first, each with the content type it declares that the
    /// file's type conforms to.
    public var matchedTypes: [String: String] {
        resolution.candidates.filter(\.isEligible).reduce(into: [:]) { $0[$1.bundleIdentifier] = $1.matchedType }
    }
}

extension Registry {
    /// The type and handlers of a file: `type` as asked when given; else by `name` and the content
    /// when there is a descriptor (read, never reopened; as the Inbox's check decides it); else by
    /// `name`, then the sender's announced MIME type, then `public.data`. `name` is a bare file
    /// name (the caller makes it one). nil when there is nothing to go by (no name, descriptor,
    /// type or MIME type); `InvalidArguments` when the type is not a uniform type identifier.
    public func fileHandlers(name: String, descriptor: Int32?, type asked: String?, announcedMIMEType announced: String?) throws(CourierError) -> FileHandlers? {
        let type: String
        let reason: String
        var mimeType: String?
        if let asked {
            (type, reason) = (types.canonical(asked), "as asked")
        } else if let descriptor {
            let identification = fileTypes.identify(suggestedName: name, fileDescriptor: descriptor)
            (type, reason, mimeType) = (identification.typeIdentifier, identification.reason, identification.mimeType)
        } else if let byName = name.isEmpty ? nil : types.type(forFileName: name) {
            (type, reason) = (byName, "by its name")
        } else if let announced, announced.contains("/") {
            (type, reason, mimeType) = (types.type(forMIMEType: announced), "by the announced MIME type \(announced)", announced.lowercased())
        } else if !name.isEmpty {
            (type, reason) = ("public.data", "nothing in its name says what it is")
        } else {
            return nil
        }
        let resolution = handlers(forType: type)
        if let problem = resolution.problem { throw CourierError(.invalidArguments, problem) }
        return FileHandlers(type: type, reason: reason, mimeType: mimeType ?? types.preferredMIMEType(for: type), resolution: resolution)
    }
}
