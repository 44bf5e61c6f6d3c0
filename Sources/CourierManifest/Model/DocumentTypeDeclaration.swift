import CourierTypes
/// One entry of `CFBundleDocumentTypes`: the content types an app opens, with role and rank.
public struct DocumentTypeDeclaration: Sendable, Hashable {
    /// `CFBundleTypeName`.
    public var name: String
    /// `LSItemContentTypes`: uniform type identifiers. A file whose type conforms to one of them
    /// is accepted.
    public var contentTypes: [String]
    /// `CFBundleTypeRole`, `Viewer` when absent.
    public var role: HandlerRole
    /// `LSHandlerRank`, `Default` when absent.
    public var rank: HandlerRank

    public init(name: String, contentTypes: [String], role: HandlerRole = .viewer, rank: HandlerRank = .default) {
        self.name = name
        self.contentTypes = contentTypes
        self.role = role
        self.rank = rank
    }
}
