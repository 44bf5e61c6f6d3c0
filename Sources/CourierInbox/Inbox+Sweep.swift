import CourierNames
#if canImport(Glibc)
import Glibc
#endif

extension Inbox {
    /// Removes the hidden temporary files (`.courier-partial-*`) that drops killed mid-copy left
    /// in any Inbox under the containers root. Call it at start-up, before serving drops.
    ///
    /// A temporary file that a running drop still holds (it keeps an `flock` on it) is left alone,
    /// so a sweep is safe even while drops run. Links are never followed: a container whose
    /// `Documents` or `Inbox` is a symbolic link is reported and skipped. Missing folders are fine.
    public func sweepLeftovers() -> SweepReport {
        var report = SweepReport()
        let root: OwnedDescriptor
        do {
            root = try ContainerPath.openRoot(containersRoot, create: false)
        } catch {
            if error.errno != ENOENT { report.problems.append(error.message) }
            return report
        }
        let containers: [String]
        do {
            containers = try Sys.directoryEntries(root.rawValue)
        } catch {
            report.problems.append("listing \(containersRoot.debugDescription) failed: \(error)")
            return report
        }
        for container in containers.sorted() {
            do {
                guard let inbox = try Self.openExisting(root, [container] + CourierLayout.inboxInContainer, under: containersRoot) else { continue }
                sweep(inbox, at: inboxPath(for: container), into: &report)
            } catch {
                report.problems.append(error.message)
            }
        }
        return report
    }

    /// Opens `components` below `directory` without creating or following anything; nil when one
    /// is missing or is a plain file (not a container).
    private static func openExisting(_ directory: borrowing OwnedDescriptor, _ components: [String],
                                     under base: String) throws(InboxError) -> OwnedDescriptor? {
        var path = base + "/" + components[0]
        guard var current = try ContainerPath.openChild(directory, components[0], create: false, displayPath: path) else { return nil }
        for component in components.dropFirst() {
            path += "/" + component
            guard let next = try ContainerPath.openChild(current, component, create: false, displayPath: path) else { return nil }
            current = next
        }
        return current
    }

    private func sweep(_ inbox: borrowing OwnedDescriptor, at path: String, into report: inout SweepReport) {
        let names: [String]
        do {
            names = try Sys.directoryEntries(inbox.rawValue)
        } catch {
            report.problems.append("listing \(path.debugDescription) failed: \(error)")
            return
        }
        for name in names where name.hasPrefix(Self.temporaryNamePrefix) {
            let filePath = path + "/" + name
            // A live drop holds an exclusive lock on its file; a dead one's lock died with it.
            // O_NONBLOCK so that a FIFO planted under this name cannot block the sweep.
            if let file = try? Sys.openAt(inbox.rawValue, name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK) {
                do {
                    try Sys.lock(file.rawValue, LOCK_EX | LOCK_NB)
                } catch let error where error == .wouldBlock {
                    report.inUse.append(filePath)
                    continue
                } catch {
                    // Not lockable (not a regular file): not one of ours in use, remove it.
                }
            }
            do {
                try Sys.unlink(inbox.rawValue, name)
                report.removed.append(filePath)
            } catch let error where error == .noEntry {
                continue
            } catch {
                report.problems.append("removing \(filePath.debugDescription) failed: \(error)")
            }
        }
    }
}
