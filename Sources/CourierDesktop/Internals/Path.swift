/// String path helpers: the desktop edge deals in POSIX paths, never in `URL`s, so that a path is
/// exactly the bytes the C calls receive.
enum Path {
    static func join(_ base: String, _ component: String) -> String {
        if base.hasSuffix("/") { return base + component }
        return base + "/" + component
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
