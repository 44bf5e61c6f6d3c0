/// One file offered in a drop: an open descriptor and the name the sender suggests for it.
///
/// The descriptor is borrowed: `Inbox.drop` reads it (with `pread`/`copy_file_range` at explicit
/// offsets, so the shared file offset is restored) and never closes it; the caller closes it after
/// the drop returns. The sender opened it, so the receiver never opens a path on the sender's
/// behalf (no confused deputy).
public struct DropFile: Sendable {
    /// An open, readable descriptor of a regular file.
    public var descriptor: Int32
    /// The suggested name, as given (possibly hostile, possibly not UTF-8): only a suggestion.
    public var suggestedName: [UInt8]

    public init(descriptor: Int32, suggestedName: String) {
        self.descriptor = descriptor
        self.suggestedName = Array(suggestedName.utf8)
    }

    public init(descriptor: Int32, suggestedNameBytes: [UInt8]) {
        self.descriptor = descriptor
        self.suggestedName = suggestedNameBytes
    }

    /// The suggestion decoded for display (invalid UTF-8 replaced).
    public var suggestedNameText: String { String(decoding: suggestedName, as: UTF8.self) }
}
