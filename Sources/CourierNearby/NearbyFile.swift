/// One file announced in `prepare-upload` (protocol v2, section 4.1). `id` is the sender's key;
/// `fileName` is only a suggestion (validated by ``NearbyFileName``, then sanitised again by the
/// Inbox); `size` is a promise the upload must keep to the byte; `sha256`, when given, too.
public struct NearbyFile: Codable, Sendable, Hashable {
    public var id: String
    public var fileName: String
    public var size: Int64
    /// A MIME type ("image/jpeg"); v1 senders put "image", "text", … here.
    public var fileType: String?
    /// Lowercase hex SHA-256 of the content, when the sender computed it.
    public var sha256: String?
    public var preview: String?

    public init(id: String, fileName: String, size: Int64, fileType: String? = nil, sha256: String? = nil, preview: String? = nil) {
        self.id = id
        self.fileName = fileName
        self.size = size
        self.fileType = fileType
        self.sha256 = sha256
        self.preview = preview
    }
}
