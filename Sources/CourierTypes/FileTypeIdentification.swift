/// The type Courier gives a file, and how it got there.
public struct FileTypeIdentification: Sendable, Hashable, CustomStringConvertible {
    /// Which evidence decided.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The file name's extension (content agreed, said nothing, or was not available).
        case filenameExtension = "extension"
        /// The content (no usable extension, or the extension lied).
        case content
        /// Neither told anything: `public.data`.
        case fallback
    }

    /// The uniform type identifier (canonical; `dyn.mime.*` / `dyn.ext.*` for undeclared types).
    public var typeIdentifier: String
    /// A MIME type for it, if one is known.
    public var mimeType: String?
    public var source: Source
    /// What the extension alone said, if anything.
    public var typeByExtension: String?
    /// What the content alone said, if it was examined and said something.
    public var typeByContent: String?
    /// One sentence for people (shown by `courier handlers --type FILE`).
    public var reason: String
    /// Where Courier decided otherwise than GIO would, if it did (``FileTypeResolver/Departure``).
    public var departure: FileTypeResolver.Departure?

    public init(typeIdentifier: String, mimeType: String?, source: Source, typeByExtension: String?, typeByContent: String?,
                reason: String, departure: FileTypeResolver.Departure? = nil) {
        self.typeIdentifier = typeIdentifier
        self.mimeType = mimeType
        self.source = source
        self.typeByExtension = typeByExtension
        self.typeByContent = typeByContent
        self.reason = reason
        self.departure = departure
    }

    public var description: String { "\(typeIdentifier) (\(reason))" }
}
