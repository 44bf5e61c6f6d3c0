import Glibc

/// Path string helpers (no Foundation `URL`: paths here are byte-exact strings), shared within the
/// package by every layer whose paths are exactly the bytes the C calls receive (the layout, the
/// registry, the desktop edge).
package enum Paths {
    package static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The folder part of a path (`/a/b/c.plist` → `/a/b`; `c.plist` → `.`).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Removes `.` segments, resolves `..` lexically and collapses repeated slashes.
    package static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if let last = parts.last, last != ".." { parts.removeLast(); continue }
                if absolute { continue }
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// Whether `normalize` would leave an absolute path unchanged (the common case, checked cheaply).
    package static func isNormal(_ path: String) -> Bool {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0, count = 0
        for b in path.utf8 {
            if b == UInt8(ascii: "/") && (previous == UInt8(ascii: "/") || (previous == UInt8(ascii: ".") && (beforePrevious == UInt8(ascii: "/") || beforePrevious == UInt8(ascii: ".")))) { return false }
            beforePrevious = previous
            previous = b
            count += 1
        }
        if count > 1 && previous == UInt8(ascii: "/") { return false }
        if previous == UInt8(ascii: ".") && (beforePrevious == UInt8(ascii: "/") || beforePrevious == UInt8(ascii: ".")) { return false }
        return true
    }

    /// Makes a path absolute against the current directory.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return isNormal(path) ? path : normalize(path) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return normalize(path) }
        let cwd = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return normalize(join(cwd, path))
    }

    package static func isExecutableFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }
}
