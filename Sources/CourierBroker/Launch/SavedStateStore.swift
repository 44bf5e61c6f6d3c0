public import CourierNames
import Foundation

/// The broker's side of preserved state: it never writes an archive (the app library does, in the
/// app's container), it reads one to hand back at `CheckIn`, and removes one after a crash.
public struct SavedStateStore: Sendable {
    public let layout: CourierLayout

    public init(layout: CourierLayout) {
        self.layout = layout
    }

    /// The archive's bytes, or nil when there is none (or it is too large to be a state, or not a
    /// regular file: a symbolic link planted there is not followed).
    public func read(_ bundleID: String) -> [UInt8]? {
        guard let path = archivePath(bundleID) else { return nil }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= SavedStateLayout.maximumSize else { return nil }
        guard let data = try? FileHandle(fileDescriptor: fd, closeOnDealloc: false).readToEnd() else { return [] }
        return data.count <= SavedStateLayout.maximumSize ? [UInt8](data) : nil
    }

    /// Removes the archive; true when there was one.
    @discardableResult
    public func discard(_ bundleID: String) -> Bool {
        guard let path = archivePath(bundleID) else { return false }
        return unlink(path) == 0
    }

    private func archivePath(_ bundleID: String) -> String? {
        BundleIdentifier(validating: bundleID).map { layout.savedStateArchive(for: $0) }
    }
}
