import CourierTypes
import Glibc

/// Lists a folder's entry names (no `.`/`..`), sorted byte-wise so loads are deterministic.
enum DirectoryListing {
    enum Failure: Error {
        case missing
        case unreadable(reason: String)
    }

    /// The names that are text, and the display form (invalid bytes as U+FFFD) of those that are
    /// not UTF-8: a Swift `String` path cannot name such a file, so it cannot be opened by path.
    static func names(in directory: String) -> Result<[String], Failure> {
        entries(in: directory).map { $0.filter(\.isUTF8).map(\.name) }
    }

    /// Every entry name, with whether its bytes are UTF-8.
    static func entries(in directory: String) -> Result<[(name: String, isUTF8: Bool)], Failure> {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return .failure(.missing) }
            return .failure(.unreadable(reason: SafeFileReader.errorText(errno)))
        }
        defer { closedir(dir) }
        var names: [(name: String, isUTF8: Bool)] = []
        while let entry = readdir(dir) {
            let (name, isUTF8) = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.prefix(while: { $0 != 0 })
                return (String(decoding: bytes, as: UTF8.self), String(validating: bytes, as: UTF8.self) != nil)
            }
            if name == "." || name == ".." { continue }
            names.append((name, isUTF8))
        }
        names.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        return .success(names)
    }
}
