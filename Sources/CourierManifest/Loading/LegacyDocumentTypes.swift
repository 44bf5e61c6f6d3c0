import CourierTypes
/// The document-type keys of older `Info.plist` files, `CFBundleTypeExtensions` and
/// `CFBundleTypeMIMETypes`, mapped to uniform type identifiers the way Launch Services does when an
/// entry has no `LSItemContentTypes`: each extension and MIME type becomes the type a file with it
/// would be identified as (``FileTypeResolver``), so that such an app is offered exactly the files
/// whose names or contents say so.
///
/// The types come from the app's own exported and imported declarations first, then Courier's
/// system types, then the freedesktop shared-mime-info database (`dyn.mime.*`), and for an
/// extension nothing knows, `dyn.ext.<extension>` — the same identifiers the file-type resolver
/// gives files, so the declaration and the files meet. Wildcards: the extension `*` and the MIME
/// types `*` and `*/*` mean any file (`public.data`); `text/*`, `image/*`, `audio/*` and `video/*`
/// mean `public.text`, `public.image`, `public.audio` and `public.movie`. `CFBundleTypeOSTypes`
/// codes are read for the few that name a type unambiguously (``osTypes``).
struct LegacyDocumentTypes {
    /// One inferred type and where it came from, for the diagnostic.
    struct Inference: Equatable {
        var typeIdentifier: String
        /// `CFBundleTypeExtensions txt`, `CFBundleTypeMIMETypes application/pdf`.
        var source: String
    }

    static let extensionsKey = "CFBundleTypeExtensions"
    static let mimeTypesKey = "CFBundleTypeMIMETypes"
    static let osTypesKey = "CFBundleTypeOSTypes"

    /// The Classic four-character file types real old manifests still carry, for the types they
    /// name unambiguously (`****` is any file). Others (`????`, creator-specific codes) say nothing
    /// Courier can use and are skipped without a warning.
    static let osTypes: [String: String] = [
        "****": "public.data", "fold": "public.folder", "TEXT": "public.plain-text", "utxt": "public.utf16-plain-text",
        "PDF ": "com.adobe.pdf", "PNGf": "public.png", "JPEG": "public.jpeg", "GIFf": "com.compuserve.gif",
        "TIFF": "public.tiff", "BMP ": "com.microsoft.bmp", "BMPf": "com.microsoft.bmp", "RTF ": "public.rtf",
        "HTML": "public.html", "MooV": "com.apple.quicktime-movie", "ZIP ": "public.zip-archive",
    ]

    static let mimeWildcards: [String: String] = [
        "*": "public.data", "*/*": "public.data", "application/*": "public.data",
        "text/*": "public.text", "image/*": "public.image", "audio/*": "public.audio", "video/*": "public.movie",
    ]

    let types: TypeGraph

    /// A graph of the system types plus the manifest's own declarations (exported first).
    init(mimeDatabase: MIMEDatabase, exported: [TypeDeclaration], imported: [TypeDeclaration], bundleIdentifier: String) {
        var graph = TypeGraph(mimeDatabase: mimeDatabase)
        for declaration in exported { graph.add(declaration, declaredBy: bundleIdentifier, exported: true) }
        for declaration in imported { graph.add(declaration, declaredBy: bundleIdentifier, exported: false) }
        types = graph
    }

    /// The extension as a file name would carry it: no leading dot, lowercased; nil when it cannot
    /// be an extension (empty, blanks inside, a `/`, control characters).
    static func normalizedExtension(_ raw: String) -> String? {
        var ext = Identifiers.trimmingWhitespace(raw)
        while ext.hasPrefix(".") { ext.removeFirst() }
        guard !ext.isEmpty, ext.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "/" }) else { return nil }
        return ext.lowercased()
    }

    /// The type a Classic file type code names, if it names one (exact, four characters).
    func type(forOSType code: String) -> String? { Self.osTypes[code] }

    /// The type of files named `*.ext` (nil for a value that is not an extension).
    func type(forExtension raw: String) -> String? {
        if Identifiers.trimmingWhitespace(raw) == "*" { return "public.data" }
        guard let ext = Self.normalizedExtension(raw) else { return nil }
        return types.type(forFilenameExtension: ext) ?? TypeGraph.dynamicExtensionPrefix + ext
    }

    /// The type of files of MIME type `mime` (nil for a value that is not a MIME type).
    func type(forMIMEType raw: String) -> String? {
        var mime = Identifiers.trimmingWhitespace(raw).lowercased()
        if let wildcard = Self.mimeWildcards[mime] { return wildcard }
        if let semicolon = mime.firstIndex(of: ";") { mime = Identifiers.trimmingWhitespace(String(mime[..<semicolon])) }
        let parts = mime.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !mime.contains("*"),
              mime.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return types.type(forMIMEType: mime)
    }
}
