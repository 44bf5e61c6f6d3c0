/// Bounds on one drop, checked before anything is written, so a drop is refused whole rather than
/// failing half-way with a disk full.
public struct DropLimits: Sendable, Equatable {
    /// At most this many files in one drop (each one holds a descriptor while it is staged).
    public var maximumFileCount: Int
    /// No single file larger than this (its apparent size, `st_size`).
    public var maximumFileBytes: Int64
    /// The files of one drop together no larger than this.
    public var maximumDropBytes: Int64
    /// Free space that must remain on the Inbox's file system after the copy.
    public var reservedFreeBytes: Int64

    /// 256 files, 8 GiB per file, 16 GiB per drop, 64 MiB kept free.
    public static let standard = DropLimits(
        maximumFileCount: 256,
        maximumFileBytes: 8 << 30,
        maximumDropBytes: 16 << 30,
        reservedFreeBytes: 64 << 20)
}
