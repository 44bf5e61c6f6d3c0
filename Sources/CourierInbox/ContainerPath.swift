import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// Reaching `<root>/<bundle-id>/Documents/Inbox` without following links an app could plant.
///
/// The containers root is the broker's own configuration and is opened as given. Every component
/// below it lives in the app's container, which the app can write: each is opened with
/// `openat(…, O_DIRECTORY | O_NOFOLLOW)` relative to the previous one, so a symbolic link planted
/// as `Documents` or `Inbox` (pointing at `~/.ssh`, say) is refused instead of written through.
enum ContainerPath {
    /// The identifier, checked by the one rule (`BundleIdentifier`, whose identifiers are safe
    /// folder names: no `/`, no leading `.` or `-`).
    static func validate(bundleIdentifier: String) throws(InboxError) -> BundleIdentifier {
        do {
            return try BundleIdentifier(bundleIdentifier)
        } catch {
            throw InboxError(code: .invalidBundleIdentifier, message: "\(error); it cannot name an app container.")
        }
    }

    /// Opens the containers root, creating it (mode 0700, with its parents) when `create` is set.
    static func openRoot(_ root: String, create: Bool) throws(InboxError) -> OwnedDescriptor {
        let flags = O_RDONLY | O_DIRECTORY
        do {
            return try Sys.open(root, flags: flags)
        } catch let error where error == .noEntry && create {
            var path = ""
            for component in root.split(separator: "/", omittingEmptySubsequences: true) {
                path += "/" + component
                do {
                    try Sys.makeDirectory(AT_FDCWD, path, mode: 0o700)
                } catch let error where error == .exists {
                    continue
                } catch {
                    throw InboxError.io(error, "creating the containers folder \(path.debugDescription)", file: nil)
                }
            }
            do {
                return try Sys.open(root, flags: flags)
            } catch {
                throw InboxError.io(error, "opening the containers folder \(root.debugDescription)", file: nil)
            }
        } catch {
            throw InboxError.io(error, "opening the containers folder \(root.debugDescription)", file: nil)
        }
    }

    /// Opens `name` inside `directory` as a folder without following a link; creates it (0700)
    /// when missing and `create` is set. Returns nil when it is missing and `create` is not set.
    static func openChild(_ directory: borrowing OwnedDescriptor, _ name: String, create: Bool,
                          displayPath: String) throws(InboxError) -> OwnedDescriptor? {
        for _ in 0..<3 {
            do {
                return try Sys.openAt(directory.rawValue, name, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
            } catch let error where error == .noEntry {
                guard create else { return nil }
                do {
                    try Sys.makeDirectory(directory.rawValue, name, mode: 0o700)
                } catch let error where error == .exists {
                    continue  // someone made it meanwhile: open what is there (and check it)
                } catch {
                    throw InboxError.io(error, "creating the folder \(displayPath.debugDescription)", file: nil)
                }
            } catch let error where error == .symbolicLinkLoop || error == .notDirectory {
                let isLink = (try? Sys.linkStatus(directory.rawValue, name)).map { $0.st_mode & S_IFMT == S_IFLNK } ?? false
                let what = isLink ? "is a symbolic link" : "is not a folder"
                throw InboxError(
                    code: .unsafeFolder,
                    message: "\(displayPath.debugDescription) \(what); Courier never follows links inside an app container, so nothing was written. Remove it (the app's container must hold real folders) and drop again.",
                    errno: error.rawValue)
            } catch {
                throw InboxError.io(error, "opening the folder \(displayPath.debugDescription)", file: nil)
            }
        }
        throw InboxError(code: .unsafeFolder,
                         message: "\(displayPath.debugDescription) keeps changing while Courier opens it; nothing was written. Try again.")
    }

    /// Opens (and, with `create`, makes) the Inbox of `bundleIdentifier` under `root`.
    /// Returns nil when a folder is missing and `create` is not set.
    static func openInbox(root: String, bundleIdentifier: BundleIdentifier, create: Bool) throws(InboxError) -> OwnedDescriptor? {
        var current = try openRoot(root, create: create)
        var path = root
        for component in CourierLayout.inboxComponents(for: bundleIdentifier) {
            path += "/" + component
            guard let next = try openChild(current, component, create: create, displayPath: path) else { return nil }
            current = next
        }
        return current
    }
}
