/// How far a drop has got, reported while files are copied (for a progress bar).
public struct DropProgress: Sendable, Equatable {
    /// The file being copied, from 0.
    public let fileIndex: Int
    /// How many files the drop has.
    public let fileCount: Int
    /// Bytes of this file done so far (holes of a sparse file count as done).
    public let fileBytesCopied: Int64
    /// This file's size.
    public let fileBytes: Int64
    /// Bytes of the whole drop done so far.
    public let bytesCopied: Int64
    /// The whole drop's size.
    public let totalBytes: Int64

    public init(fileIndex: Int, fileCount: Int, fileBytesCopied: Int64, fileBytes: Int64, bytesCopied: Int64, totalBytes: Int64) {
        self.fileIndex = fileIndex
        self.fileCount = fileCount
        self.fileBytesCopied = fileBytesCopied
        self.fileBytes = fileBytes
        self.bytesCopied = bytesCopied
        self.totalBytes = totalBytes
    }

    /// Done so far, from 0 to 1 (1 for an empty drop).
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesCopied) / Double(totalBytes) }
}
