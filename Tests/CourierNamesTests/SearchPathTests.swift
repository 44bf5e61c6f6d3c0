import CourierNames
import Foundation
import Testing

/// The one `PATH` lookup.
@Suite struct SearchPathTests {
    @Test func findsTheFirstExecutableRegularFileSkippingRelativeAndEmptyFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("searchpath-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["a", "b", "c"] { try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true) }
        try FileManager.default.createDirectory(atPath: "\(root)/a/tool", withIntermediateDirectories: true)    // a folder, not a program
        _ = FileManager.default.createFile(atPath: "\(root)/b/tool", contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])  // not executable
        _ = FileManager.default.createFile(atPath: "\(root)/c/tool", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        #expect(SearchPath.find("tool", in: "\(root)/a::\(root)/b:relative:\(root)/c") == "\(root)/c/tool")
        #expect(SearchPath.find("tool", in: "\(root)/a:\(root)/b") == nil)
        #expect(SearchPath.find("c/tool", in: root) == nil, "a name with a slash is not looked up")
        // A relative folder is never searched (here one that names the folder holding the tool).
        let relative = String(repeating: "../", count: 32) + root.dropFirst() + "/c"
        #expect(SearchPath.find("tool", in: relative) == nil)
    }

    @Test func anUnsetPathSearchesTheSystemFolders() {
        #expect(SearchPath.find("sh", in: nil).map { ["/usr/local/bin/sh", "/usr/bin/sh", "/bin/sh"].contains($0) } == true)
    }
}
