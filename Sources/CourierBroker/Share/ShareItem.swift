public import CourierProtocol

/// One item a caller wants to share, as the broker sees it when it lists activities: what kind of
/// thing it is and its type. A file's type comes from its name and content, as for a drop; the
/// broker never sees a text item's words or a data item's bytes.
public struct ShareItem: Sendable, Hashable {
    /// How the item travels (`kind` in `ShareActivities`' `a(sss)`).
    public typealias Kind = ShareItemKind

    public var kind: Kind
    /// The canonical type identifier: identified for a file, `public.url` for a URL,
    /// `public.utf8-plain-text` for text, the caller's for data.
    public var typeIdentifier: String
    /// A URL's scheme, lowercased; nil for the other kinds.
    public var scheme: String?

    public init(kind: Kind, typeIdentifier: String, scheme: String? = nil) {
        self.kind = kind
        self.typeIdentifier = typeIdentifier
        self.scheme = scheme
    }

    /// The type of every URL item.
    public static let urlType = "public.url"
    /// The type of every text item (and of the `.txt` file it becomes in an Inbox).
    public static let textType = "public.utf8-plain-text"
}
