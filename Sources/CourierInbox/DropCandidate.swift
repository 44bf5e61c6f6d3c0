/// What a type policy sees of one file before anything is written: enough to decide its type from
/// the suggested name and from the content.
public struct DropCandidate: Sendable {
    /// Position in the drop, from 0.
    public let index: Int
    /// The suggested name as given, decoded for display.
    public let suggestedName: String
    /// The sanitized name it would be stored under (before any `-N` numbering).
    public let fileName: InboxFileName
    /// Size in bytes (`st_size`).
    public let size: Int64
    /// The first bytes of the file (up to `DropCandidate.sniffLength`), for content sniffing.
    public let leadingBytes: [UInt8]
    /// The sender's descriptor, borrowed: read it only with `pread` (no offset change) and never close it.
    public let descriptor: Int32

    /// How many leading bytes are read for sniffing.
    public static let sniffLength = 4096

    /// "file 2 ("notes.txt")": how messages name this file.
    public var label: String { fileLabel(index: index, suggestedName: suggestedName) }
}
