/// How a file is held while it is copied, before it gets its name in the Inbox.
public enum StagingStrategy: Sendable, Equatable {
    /// An unnamed file where the file system and `/proc` allow it, a named one otherwise.
    case automatic
    /// `O_TMPFILE`: the file has no name until it is complete; if the writer dies, the kernel frees
    /// it and nothing is left at all. Published with `linkat` from `/proc/self/fd`.
    case unnamedTemporaryFile
    /// A hidden `.courier-partial-*` file in the Inbox, locked (`flock`) while it is written,
    /// published with `renameat2(RENAME_NOREPLACE)`. If the writer dies it stays behind, hidden,
    /// until `Inbox.sweepLeftovers()` removes it.
    case namedTemporaryFile
}
