import CourierNames
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What went wrong at the freedesktop edge: each case names what was wrong, where, and what to do.
public enum DesktopIntegrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A bundle identifier that cannot become a desktop file id (it would name a path, or not parse).
    case invalidBundleIdentifier(String)
    /// A URL scheme that is not RFC 3986 `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    case invalidScheme(String)
    /// The command a desktop entry would run is not an absolute path.
    case relativeExecutable(String)
    /// A hand-off target that is not an absolute URL (`scheme:…`), so no desktop handler could own it.
    case notAnAbsoluteURL(String)
    /// `mimeapps.list` (or another file Courier must edit) is not UTF-8 text; it is left untouched.
    case notUTF8(path: String)
    /// A file-system call failed; `errno` is the C error number.
    case fileSystem(operation: String, path: String, errno: Int32)
    /// A desktop entry Courier would replace or remove exists but was not written by Courier.
    case foreignDesktopEntry(path: String)
    /// Neither `gio` nor `xdg-open` (or the configured openers) is on `PATH`.
    case noDesktopOpener(searched: [String])
    /// `posix_spawn` failed for a program Courier runs.
    case spawnFailed(program: String, errno: Int32)
    /// No desktop entry with this desktop file id is installed in the folders searched.
    case unknownDesktopEntry(id: String, searched: [String])
    /// The desktop entry exists but its `MimeType` key does not list the type it was chosen for.
    case desktopEntryDoesNotDeclare(id: String, mimeType: String, path: String)

    public var description: String {
        switch self {
        case .invalidBundleIdentifier(let id):
            do { _ = try BundleIdentifier(id) } catch { return error.description }
            return "invalid bundle identifier '\(id)'"
        case .invalidScheme(let scheme):
            return "invalid URL scheme '\(scheme)': a scheme starts with a letter and contains only letters, digits, '+', '-' and '.'"
        case .relativeExecutable(let path):
            return "desktop entry command '\(path)' is not an absolute path: pass the absolute path of the courier executable"
        case .notAnAbsoluteURL(let url):
            return "'\(url)' is not an absolute URL (scheme:…): the desktop can only open absolute URLs"
        case .notUTF8(let path):
            return "\(path) is not UTF-8 text; Courier left it untouched: fix or remove the file, then register again"
        case .fileSystem(let operation, let path, let code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .foreignDesktopEntry(let path):
            return "\(path) exists and was not written by Courier (no X-Courier-BundleIdentifier key); Courier left it alone: rename or remove it"
        case .noDesktopOpener(let searched):
            return "no desktop opener found on PATH (looked for \(searched.joined(separator: ", "))): install glib (gio) or xdg-utils (xdg-open)"
        case .spawnFailed(let program, let code):
            return "cannot start \(program): \(String(cString: strerror(code))) (errno \(code))"
        case .unknownDesktopEntry(let id, let searched):
            guard DesktopApplications.isValidID(id) else {
                return "'\(id)' is not a desktop file id: give the name of an installed .desktop file, e.g. firefox.desktop"
            }
            return "no desktop entry \(id) is installed (searched \(searched.joined(separator: ", "))); `gio mime TYPE` lists the installed ones"
        case .desktopEntryDoesNotDeclare(let id, let mimeType, let path):
            return "\(id) does not declare \(mimeType) (its MimeType key in \(path) does not list it); choose an application that does: `courier handlers` lists them"
        }
    }
}
