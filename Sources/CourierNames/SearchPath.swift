#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finding a program by name on a `PATH`: the one lookup of the broker (an app's bare `argv[0]`),
/// `courier register` (the registering user's program), `courier` (`courierd`) and the desktop edge
/// (`gio`, `xdg-open`, `update-desktop-database`).
///
/// The rule: the colon-separated folders in order, the first regular file there that this process
/// may execute. Empty and relative elements are skipped — `execvp(3)` would take them relative to
/// the current folder, which for a broker is wherever it happened to start, so a planted file
/// there must never run. An unset `PATH` searches `/usr/local/bin:/usr/bin:/bin`.
public enum SearchPath {
    /// The folders searched when `PATH` is unset.
    public static let fallback = "/usr/local/bin:/usr/bin:/bin"

    /// The first executable regular file named `name` in `searchPath` (`$PATH`; `nil` for unset),
    /// or nil. `name` is a bare name: one containing `/` is not looked up (nil).
    public static func find(_ name: String, in searchPath: String?) -> String? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        for folder in (searchPath ?? fallback).split(separator: ":") where folder.hasPrefix("/") {
            let candidate = Paths.join(String(folder), name)
            if Paths.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}
