import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder removed at deinit; tests write real files into it (manifests, type
/// sniffing). Its path never changes after `init`.
public final class TemporaryFolder: Sendable {
    public let path: String

    public init() {
        var template = Array("/tmp/courier-tests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: made!)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func url(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = url(name)
        try! FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: p))
        return p
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let p = url(name)
        try! Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    public func subfolder(_ name: String) -> String {
        let p = url(name)
        try! FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }
}
