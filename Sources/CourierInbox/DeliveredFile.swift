public import Foundation

/// A file placed in an Inbox: complete, synced to disk and read-only (mode 0444).
public struct DeliveredFile: Sendable, Equatable {
    /// Its position in the drop, from 0.
    public let index: Int
    /// The name it got in the Inbox (sanitized, maybe numbered: `Report-1.pdf`).
    public let name: String
    /// The absolute path of the file.
    public let path: String
    /// Its size in bytes.
    public let size: Int64

    public init(index: Int, name: String, path: String, size: Int64) {
        self.index = index
        self.name = name
        self.path = path
        self.size = size
    }

    /// `file://` URL of the file, as handed to the app's `OpenURL`.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: false) }
}
