import CourierTypes
import Glibc

/// Lists a folder's entry names (no `.`/`..`), sorted byte-wise so loads are deterministic.
enum DirectoryListing {
    enum Failure: Error {
        case missing
        case unreadable(reason: String)
    }

    static func names(in directory: String) -> Result<[String], Failure> {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return .failure(.missing) }
            return .failure(.unreadable(reason: SafeFileReader.errorText(errno)))
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return .success(names)
    }
}
