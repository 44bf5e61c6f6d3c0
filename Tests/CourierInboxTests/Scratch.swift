import Foundation
import CourierInbox
#if canImport(Glibc)
import Glibc
#endif

/// A private folder under /tmp for one test, removed with everything in it when the test ends.
final class Scratch: Sendable {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/courier-inbox-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The containers root inside this folder.
    var root: String { path + "/containers" }

    /// An Inbox over this folder's containers root.
    func inbox(staging: StagingStrategy = .automatic, limits: DropLimits = .standard) -> Inbox {
        Inbox(containersRoot: root, limits: limits, staging: staging)
    }

    /// Writes `contents` to `name` in this folder and returns its path.
    @discardableResult
    func write(_ name: String, _ contents: [UInt8]) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: Data(contents))
        return file
    }

    /// Opens `file` with `flags`, runs `body` with the descriptor, closes it.
    func withDescriptor<R>(_ file: String, flags: Int32 = O_RDONLY, _ body: (Int32) throws -> R) throws -> R {
        let fd = open(file, flags | O_CLOEXEC)
        precondition(fd >= 0, "open \(file) failed: \(errno)")
        defer { close(fd) }
        return try body(fd)
    }

    /// Names in `folder` (sorted), nil if it does not exist.
    func list(_ folder: String) -> [String]? {
        (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted()
    }

    /// The descriptors of this process that point into this folder (should be none between drops).
    func openDescriptorsInside() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry) else { return nil }
            return target.hasPrefix(path) ? target : nil
        }
    }
}

/// The bytes of the file at `path`.
func contents(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

/// `stat` of `path` (following links).
func status(_ path: String) -> stat {
    var result = stat()
    precondition(stat(path, &result) == 0, "stat \(path) failed: \(errno)")
    return result
}
