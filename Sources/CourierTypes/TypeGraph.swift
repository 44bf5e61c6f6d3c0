import CourierNames

/// Uniform type identifiers and their conformance: the system `public.*` hierarchy plus the types
/// apps export and import, with lookups by filename extension and MIME type.
///
/// Types nobody declared still get an identifier so that they can be routed and compared:
/// `dyn.mime.<mime type>` for a MIME type (its parents come from shared-mime-info's subclass
/// tree), `dyn.ext.<extension>` for an extension nothing knows (it conforms to `public.data`).
public struct TypeGraph: Sendable {
    /// Identifier → declaration (system and app-declared).
    public private(set) var declarations: [String: TypeDeclaration]
    /// App-declared identifier → (bundle id, exported?).
    private var owners: [String: (bundleID: String, exported: Bool)] = [:]
    private var extensionIndex: [String: String] = [:]
    private var mimeIndex: [String: String] = [:]
    /// Where extensions and MIME types the declarations do not cover are looked up.
    public let mimeDatabase: MIMEDatabase

    public static let dynamicMIMEPrefix = "dyn.mime."
    public static let dynamicExtensionPrefix = "dyn.ext."

    /// The system types only.
    public init(mimeDatabase: MIMEDatabase = .system) {
        self.mimeDatabase = mimeDatabase
        declarations = [:]
        for declaration in SystemTypes.declarations { index(declaration) }
    }

    /// Result of ``add(_:declaredBy:exported:)``.
    public enum Addition: Sendable, Equatable {
        case added
        /// A system type: apps cannot redefine it; the declaration was ignored.
        case systemType
        /// Another app declared it first (exported beats imported); the declaration was ignored.
        case declaredBy(String)
    }

    /// Adds an app's exported or imported type. An exported declaration replaces an earlier
    /// imported one; otherwise the first declaration wins.
    @discardableResult
    public mutating func add(_ declaration: TypeDeclaration, declaredBy bundleID: String, exported: Bool) -> Addition {
        let id = canonical(declaration.identifier)
        if declarations[id] != nil, owners[id] == nil { return .systemType }
        if let owner = owners[id] {
            guard exported, !owner.exported else { return .declaredBy(owner.bundleID) }
            // Exported replaces imported; drop the imported tags that pointed at it.
            extensionIndex = extensionIndex.filter { $0.value != id }
            mimeIndex = mimeIndex.filter { $0.value != id }
        }
        var declaration = declaration
        declaration.identifier = id
        owners[id] = (bundleID, exported)
        index(declaration)
        return .added
    }

    private mutating func index(_ declaration: TypeDeclaration) {
        declarations[declaration.identifier] = declaration
        for ext in declaration.filenameExtensions where extensionIndex[ext] == nil { extensionIndex[ext] = declaration.identifier }
        for mime in declaration.mimeTypes {
            // The spelling declared, and the database's own spelling of it, so that an alias
            // (`application/x-gzip`) and its canonical type meet.
            for key in [mime, mimeDatabase.canonical(mime)] where mimeIndex[key] == nil { mimeIndex[key] = declaration.identifier }
        }
    }

    /// The app that declared `identifier`, nil for system and undeclared types.
    public func declaringApplication(of identifier: String) -> String? { owners[canonical(identifier)]?.bundleID }

    /// The identifier Courier uses for `identifier` (`public.pdf` → `com.adobe.pdf`).
    public func canonical(_ identifier: String) -> String {
        SystemTypes.aliases[identifier] ?? identifier
    }

    /// The declaration of `identifier`, if any.
    public func declaration(for identifier: String) -> TypeDeclaration? {
        declarations[canonical(identifier)]
    }

    /// Whether the graph knows `identifier` (declared, or a well-formed dynamic type).
    public func isKnown(_ identifier: String) -> Bool {
        let id = canonical(identifier)
        return declarations[id] != nil || id.hasPrefix(Self.dynamicMIMEPrefix) || id.hasPrefix(Self.dynamicExtensionPrefix)
    }

    /// The type of a filename extension (no dot, any case), as a file named `*.ext` gets it: what
    /// the shared-mime-info globs say first (the desktop's meaning of a name), then the extensions of
    /// declared types (an app's own `.acmenote`); nil when neither knows it.
    public func type(forFilenameExtension ext: String) -> String? {
        if let mime = mimeDatabase.mimeType(forExtension: ext) { return type(forMIMEType: mime) }
        return extensionIndex[ext.lowercased()]
    }

    /// The type of a file name by the shared-mime-info globs (the best of them; a file's content may
    /// choose another of several: ``FileTypeResolver``), else by the longest extension a declared
    /// type lists; nil when nothing knows it.
    public func type(forFileName name: String) -> String? {
        if let mime = mimeDatabase.mimeType(forFileName: name) { return type(forMIMEType: mime) }
        return declaredType(forFileName: name)
    }

    /// The declared type whose extension is the longest suffix of `name` after a dot (`.tar.gz`
    /// before `.gz`), if any.
    public func declaredType(forFileName name: String) -> String? {
        let lower = MIMEGlobs.asciiLowercased(Paths.lastComponent(of: name))
        var index = lower.startIndex
        while let dot = lower[index...].firstIndex(of: ".") {
            let ext = String(lower[lower.index(after: dot)...])
            if !ext.isEmpty, dot != lower.startIndex || index != lower.startIndex, let id = extensionIndex[ext] { return id }
            index = lower.index(after: dot)
        }
        return nil
    }

    /// The type of a MIME type: a declared type when one lists it, else `dyn.mime.<canonical mime>`.
    public func type(forMIMEType mime: String) -> String {
        let raw = mime.lowercased().replacingSpaces()
        if let id = mimeIndex[raw] { return id }
        let m = mimeDatabase.canonical(mime)
        if let id = mimeIndex[m] { return id }
        return Self.dynamicMIMEPrefix + m
    }

    /// The MIME type to show for `identifier`, if one is known.
    public func preferredMIMEType(for identifier: String) -> String? {
        let id = canonical(identifier)
        if id.hasPrefix(Self.dynamicMIMEPrefix) { return String(id.dropFirst(Self.dynamicMIMEPrefix.count)) }
        return declarations[id]?.mimeTypes.first
    }

    /// The direct parents of `identifier`.
    public func parents(of identifier: String) -> [String] {
        let id = canonical(identifier)
        if let declaration = declarations[id] { return declaration.conformsTo.map(canonical) }
        if id.hasPrefix(Self.dynamicMIMEPrefix) {
            let mime = String(id.dropFirst(Self.dynamicMIMEPrefix.count))
            let parents = mimeDatabase.parents(of: mime).map { type(forMIMEType: $0) }.filter { $0 != id }
            return parents.isEmpty ? ["public.data"] : parents
        }
        if id.hasPrefix(Self.dynamicExtensionPrefix) { return ["public.data"] }
        return []
    }

    /// `identifier` and every type it conforms to, nearest first, each with its distance
    /// (0 for the type itself). Bounded by the size of the type graph, not by the number of apps.
    public func supertypes(of identifier: String) -> [(identifier: String, distance: Int)] {
        let start = canonical(identifier)
        var result: [(String, Int)] = [(start, 0)]
        var seen: Set<String> = [start]
        var next = 0
        while next < result.count {
            let (id, distance) = result[next]
            next += 1
            // An app's type tagged with a MIME type is that MIME type: it also is `dyn.mime.<type>`
            // (what an app that names only the MIME type declares) and sits under its parents.
            if owners[id] != nil, let declaration = declarations[id] {
                for mime in declaration.mimeTypes {
                    let same = Self.dynamicMIMEPrefix + mimeDatabase.canonical(mime)
                    if seen.insert(same).inserted { result.append((same, distance)) }
                }
            }
            for parent in parents(of: id) where seen.insert(parent).inserted {
                result.append((parent, distance + 1))
            }
        }
        return result.map { (identifier: $0.0, distance: $0.1) }
    }

    /// Whether `identifier` is `other` or conforms to it, transitively.
    public func conforms(_ identifier: String, to other: String) -> Bool {
        let target = canonical(other)
        return supertypes(of: identifier).contains { $0.identifier == target }
    }
}

extension String {
    fileprivate func replacingSpaces() -> String { filter { $0 != " " } }
}
