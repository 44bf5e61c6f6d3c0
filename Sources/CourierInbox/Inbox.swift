import CourierNames
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Delivers open files into an app's `Documents/Inbox`, the file-system half of `DropFiles`.
///
/// A drop is all or nothing and never shows a partial file:
/// 1. every descriptor is checked (readable regular file, still linked), the names sanitized,
///    the limits and the type policy applied — before anything is written;
/// 2. the Inbox is reached from the containers root without following links;
/// 3. free space is checked (`fstatvfs`);
/// 4. each file is copied into an unnamed (`O_TMPFILE`) or hidden temporary file in the Inbox,
///    set to mode 0444 and `fsync`ed — except an unnamed file the caller already wrote on the
///    Inbox's file system (``openUnnamedFile(for:)``), which is taken as it is: one write of each
///    byte (the nearby receiver streams a network upload into one);
/// 5. only then are the files published under their names, in order, with no-replace semantics;
///    if one fails, those already published are removed again.
///
/// `drop` blocks while it copies: call it from a thread of its own, or use the `async` overload,
/// which runs it on a dedicated thread so the cooperative pool is never blocked by disk I/O.
public struct Inbox: Sendable {
    /// `<containersRoot>/<bundle-id>/Documents/Inbox` is where files go (the broker's is
    /// `CourierLayout.containersRoot`).
    public let containersRoot: String
    public var limits: DropLimits
    public var staging: StagingStrategy
    /// Whether each file (and the Inbox folder) is `fsync`ed before the drop returns, so that a
    /// delivered file survives a power loss too. On by default; turning it off keeps every other
    /// guarantee (a killed writer still leaves no partial file) and is meant for volatile storage
    /// (tmpfs) and for measuring the copy itself.
    public var synchronizesToDisk: Bool
    /// Whether a file is cloned (`FICLONE`, a reflink sharing the sender's extents copy-on-write)
    /// where the file system can: on by default, the whole file in one call. Off, every file is
    /// copied in chunks (`copy_file_range`), which is what tests that interrupt a copy half-way need.
    public var clonesWhereSupported: Bool

    public init(containersRoot: String, limits: DropLimits = .standard, staging: StagingStrategy = .automatic,
                synchronizesToDisk: Bool = true, clonesWhereSupported: Bool = true) {
        self.containersRoot = containersRoot
        self.limits = limits
        self.staging = staging
        self.synchronizesToDisk = synchronizesToDisk
        self.clonesWhereSupported = clonesWhereSupported
    }

    /// The prefix of the temporary files a drop writes (and `sweepLeftovers` removes).
    public static let temporaryNamePrefix = StagedFile.temporaryNamePrefix

    /// The Inbox path of `bundleIdentifier` (whether or not it exists yet).
    public func inboxPath(for bundleIdentifier: String) -> String {
        ([containersRoot, bundleIdentifier] + CourierLayout.inboxInContainer).joined(separator: "/")
    }

    /// Places `files` in the Inbox of `bundleIdentifier`, in order, and returns where they went.
    ///
    /// - Parameters:
    ///   - files: the sender's open descriptors and suggested names; borrowed, never closed here.
    ///   - typePolicy: consulted for every file before anything is written.
    ///   - progress: called on this thread as bytes are copied.
    /// - Throws: `InboxError`; when it throws, the Inbox is as it was (apart from folders created
    ///   on the way to it).
    public func drop(_ files: [DropFile], to bundleIdentifier: String,
                     typePolicy: some DropTypePolicy = AcceptAnyType(),
                     progress: (DropProgress) -> Void = { _ in }) throws(InboxError) -> [DeliveredFile] {
        guard !files.isEmpty else {
            throw InboxError(code: .invalidRequest, message: "the drop has no files; pass at least one open file.")
        }
        guard files.count <= limits.maximumFileCount else {
            throw InboxError(code: .tooManyFiles,
                             message: "the drop has \(files.count) files, more than the limit of \(limits.maximumFileCount); send them in several drops.")
        }
        let app = try ContainerPath.validate(bundleIdentifier: bundleIdentifier)

        // 1. Check everything before writing anything.
        var sources: [SourceFile] = []
        var totalBytes: Int64 = 0
        for (index, file) in files.enumerated() {
            let source = try SourceFile(inspecting: file, index: index)
            if source.size > limits.maximumFileBytes {
                throw InboxError(code: .fileTooLarge,
                                 message: "\(source.label) is \(ByteCount(source.size)), larger than the limit of \(ByteCount(limits.maximumFileBytes)) per file; send a smaller file.",
                                 fileIndex: index)
            }
            totalBytes += source.size
            sources.append(source)
        }
        if totalBytes > limits.maximumDropBytes {
            throw InboxError(code: .dropTooLarge,
                             message: "the drop holds \(ByteCount(totalBytes)), more than the limit of \(ByteCount(limits.maximumDropBytes)) per drop; send the files in several drops.")
        }
        for source in sources {
            try typePolicy.check(source.candidate)
        }
        // A file without a name is taken only as an unnamed file made in this very Inbox
        // (`openUnnamedFile(for:)`), linked into place: anything else without a name was deleted.
        // (An Inbox that does not exist yet holds no such file.)
        // One made in a mount namespace of its own (another mount of the same file system) cannot
        // be linked here (`EXDEV`): it is copied as any file.
        let unnamed = sources.filter(\.isUnnamed)
        var linkable: Set<Int> = []
        if !unnamed.isEmpty {
            var madeHere: Set<Int> = []
            if let existing = try? ContainerPath.openInbox(root: containersRoot, bundleIdentifier: app, create: false) {
                let device = (try? Sys.fileStatus(existing.rawValue)).map { UInt64($0.st_dev) }
                for source in unnamed where source.device == device && Self.isUnnamedFile(source.descriptor, madeIn: existing.rawValue) {
                    madeHere.insert(source.index)
                    if let mount = Self.mountID(source.descriptor), mount == Self.mountID(existing.rawValue) { linkable.insert(source.index) }
                }
            }
            if let source = unnamed.first(where: { !madeHere.contains($0.index) }) {
                throw InboxError(code: .deletedFile, message: "\(source.label) has been deleted (it has no name on disk any more); drop a file that still exists, or save it first.",
                                 fileIndex: source.index)
            }
        }

        // 2. The Inbox, reached without following links.
        guard let inbox = try ContainerPath.openInbox(root: containersRoot, bundleIdentifier: app, create: true) else {
            throw InboxError(code: .ioFailure, message: "the Inbox of \(bundleIdentifier) could not be created under \(containersRoot.debugDescription).")
        }
        let inboxPath = inboxPath(for: bundleIdentifier)

        // 3. Room for all of it, plus the reserve (a file taken as it is needs none).
        try checkFreeSpace(on: inbox, for: sources.filter { !linkable.contains($0.index) }, inboxPath: inboxPath)

        // 4. Copy into staged files.
        var staged: [StagedFile] = []
        var doneBefore: Int64 = 0
        var copier = FileCopier()
        copier.writesBack = synchronizesToDisk
        copier.clones = clonesWhereSupported
        for source in sources {
            if linkable.contains(source.index) {
                let file: StagedFile
                do {
                    file = try StagedFile.adopting(source.descriptor, in: inbox.rawValue)
                    try Sys.changeMode(file.descriptor.rawValue, to: 0o444)
                    if synchronizesToDisk { try Sys.synchronize(file.descriptor.rawValue) }
                } catch {
                    throw InboxError.io(error, "taking the unnamed file into \(inboxPath.debugDescription)", file: source.label, index: source.index)
                }
                staged.append(file)
                doneBefore += source.size
                progress(DropProgress(fileIndex: source.index, fileCount: sources.count, fileBytesCopied: source.size,
                                      fileBytes: source.size, bytesCopied: doneBefore, totalBytes: totalBytes))
                continue
            }
            let file: StagedFile
            do {
                file = try StagedFile.create(in: inbox.rawValue, strategy: staging)
            } catch {
                throw InboxError.io(error, "creating a temporary file in \(inboxPath.debugDescription)", file: source.label, index: source.index)
            }
            staged.append(file)
            let report = { (done: Int64) in
                progress(DropProgress(fileIndex: source.index, fileCount: sources.count, fileBytesCopied: done,
                                      fileBytes: source.size, bytesCopied: doneBefore + done, totalBytes: totalBytes))
            }
            do {
                try copier.copy(from: source.descriptor, size: source.size, to: file.descriptor.rawValue, progress: report)
            } catch {
                switch error {
                case .sourceShrank(let offset):
                    throw InboxError(code: .sourceChanged,
                                     message: "\(source.label) shrank while it was copied (it ended at byte \(offset) of \(source.size)); nothing was delivered. Drop it again once nothing is writing to it.",
                                     fileIndex: source.index)
                case .system(let errno, _) where errno == .noSpace || errno == .quotaExceeded:
                    throw diskFilledUp(errno, while: source, inboxPath: inboxPath)
                case .system(let errno, let operation):
                    throw InboxError.io(errno, "copying (\(operation))", file: source.label, index: source.index)
                }
            }
            do {
                try Sys.changeMode(file.descriptor.rawValue, to: 0o444)
                if synchronizesToDisk { try Sys.synchronize(file.descriptor.rawValue) }
            } catch where error == .noSpace || error == .quotaExceeded {
                throw diskFilledUp(error, while: source, inboxPath: inboxPath)
            } catch {
                throw InboxError.io(error, "making the copy read-only and durable", file: source.label, index: source.index)
            }
            doneBefore += source.size
        }

        // 5. Publish, in order; undo on failure.
        var delivered: [DeliveredFile] = []
        for (source, file) in zip(sources, staged) {
            do {
                let name = try file.publish(as: source.fileName)
                delivered.append(DeliveredFile(index: source.index, name: name, path: inboxPath + "/" + name, size: source.size))
            } catch {
                staged.forEach { $0.unpublish() }
                switch error {
                case .system(let errno):
                    throw InboxError.io(errno, "naming the copy in \(inboxPath.debugDescription)", file: source.label, index: source.index)
                case .namesExhausted(let lastTried):
                    throw InboxError(code: .namesExhausted,
                                     message: "\(source.label): every name up to \(lastTried.debugDescription) is taken in \(inboxPath.debugDescription); the app should clear its Inbox.",
                                     fileIndex: source.index)
                }
            }
        }
        // The names themselves must survive a crash too: a drop that returns is durable, so a
        // folder that cannot be synchronised takes the names back and fails the drop.
        if synchronizesToDisk {
            do {
                try Sys.synchronize(inbox.rawValue)
            } catch {
                staged.forEach { $0.unpublish() }
                throw InboxError.io(error, "making the new names in \(inboxPath.debugDescription) durable (fsync of the folder)", file: nil)
            }
        }
        return delivered
    }

    /// Whether `fd` is an `O_TMPFILE` file made in the folder `directory`: the kernel names such a
    /// file `<folder>/#<inode> (deleted)` in `/proc/self/fd` (a file deleted after it had a name
    /// keeps that name instead).
    private static func isUnnamedFile(_ fd: Int32, madeIn directory: Int32) -> Bool {
        guard let folder = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(directory)"),
              let file = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
              let status = try? Sys.fileStatus(fd) else { return false }
        return file == "\(folder)/#\(status.st_ino) (deleted)"
    }

    /// The mount `fd` is on (`mnt_id` in `/proc/self/fdinfo`): `linkat` works within one mount only.
    private static func mountID(_ fd: Int32) -> String? {
        guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8) else { return nil }
        return info.split(separator: "\n").first { $0.hasPrefix("mnt_id:") }.map { $0.dropFirst("mnt_id:".count).trimmingCharacters(in: .whitespaces) }
    }

    /// An unnamed file (`O_TMPFILE`, mode 0600) in the Inbox of `bundleIdentifier`, for a writer
    /// that fills it and then drops it (through the broker's `DropFiles`, or ``drop(_:to:typePolicy:progress:)``):
    /// the drop links it into place instead of copying it, so each byte is written once. If the
    /// writer dies or gives up, closing it leaves nothing. The caller owns the descriptor.
    /// - Throws: `InboxError` when the Inbox cannot be reached or its file system has no unnamed
    ///   files (`EOPNOTSUPP`).
    public func openUnnamedFile(for bundleIdentifier: String) throws(InboxError) -> Int32 {
        let app = try ContainerPath.validate(bundleIdentifier: bundleIdentifier)
        let path = inboxPath(for: bundleIdentifier)
        guard let inbox = try ContainerPath.openInbox(root: containersRoot, bundleIdentifier: app, create: true) else {
            throw InboxError(code: .ioFailure, message: "the Inbox of \(bundleIdentifier) could not be created under \(containersRoot.debugDescription).")
        }
        do {
            return try Sys.openUnnamedFile(in: inbox.rawValue, mode: 0o600).release()
        } catch {
            throw InboxError.io(error, "creating an unnamed file in \(path.debugDescription)", file: nil)
        }
    }

    /// Makes the names in the Inbox of `bundleIdentifier` durable: `fsync` of the folder, reached
    /// as `drop` reaches it (no link followed). For a file linked into place whose drop's answer
    /// never reached the caller (the link is there; its name must survive a crash before anyone
    /// hears success).
    /// - Throws: `InboxError` (`ioFailure`) when the Inbox cannot be reached or synchronised; the
    ///   files in it stay.
    public func synchronizeInbox(of bundleIdentifier: String) throws(InboxError) {
        let app = try ContainerPath.validate(bundleIdentifier: bundleIdentifier)
        let path = inboxPath(for: bundleIdentifier)
        guard let inbox = try ContainerPath.openInbox(root: containersRoot, bundleIdentifier: app, create: false) else {
            throw InboxError(code: .ioFailure, message: "the Inbox \(path.debugDescription) is not there to be synchronised.")
        }
        do {
            try Sys.synchronize(inbox.rawValue)
        } catch {
            throw InboxError(code: .ioFailure, message: "fsync of \(path.debugDescription) failed: \(error) (errno \(error.rawValue))", errno: error.rawValue)
        }
    }

    /// Removes files this Inbox delivered to `bundleIdentifier` (a drop that spans several apps
    /// undoing the part already placed when a later part fails). The Inbox is reached as `drop`
    /// reaches it (no link followed) and each name is unlinked in it; a file already gone is fine.
    public func withdraw(_ files: [DeliveredFile], from bundleIdentifier: String) {
        guard !files.isEmpty, let app = try? ContainerPath.validate(bundleIdentifier: bundleIdentifier),
              let inbox = try? ContainerPath.openInbox(root: containersRoot, bundleIdentifier: app, create: false) else { return }
        for file in files { try? Sys.unlink(inbox.rawValue, file.name) }
        if synchronizesToDisk { try? Sys.synchronize(inbox.rawValue) }
    }

    /// `drop` on a thread of its own, so that awaiting it never blocks the concurrency pool.
    public func drop(_ files: [DropFile], to bundleIdentifier: String,
                     typePolicy: some DropTypePolicy = AcceptAnyType(),
                     progress: @escaping @Sendable (DropProgress) -> Void = { _ in }) async throws(InboxError) -> [DeliveredFile] {
        let result: Result<[DeliveredFile], InboxError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(InboxError) in
                    try self.drop(files, to: bundleIdentifier, typePolicy: typePolicy, progress: progress)
                })
            }
            thread.name = "courier-inbox-drop"
            thread.start()
        }
        return try result.get()
    }

    /// The disk filled up (or the quota ran out) after the free-space check, while `source` was
    /// copied: someone else wrote in between. Same code as the check's refusal.
    private func diskFilledUp(_ error: Errno, while source: SourceFile, inboxPath: String) -> InboxError {
        InboxError(code: .insufficientSpace,
                   message: "the file system of \(inboxPath.debugDescription) filled up while \(source.label) was copied (\(error)); nothing was delivered. Free some space and drop again.",
                   fileIndex: source.index, errno: error.rawValue)
    }

    /// Refuses the drop unless the Inbox's file system keeps `limits.reservedFreeBytes` free after it.
    private func checkFreeSpace(on inbox: borrowing OwnedDescriptor, for sources: [SourceFile], inboxPath: String) throws(InboxError) {
        let status: statvfs
        do {
            status = try Sys.fileSystemStatus(inbox.rawValue)
        } catch {
            throw InboxError.io(error, "reading the free space of \(inboxPath.debugDescription) (fstatvfs)", file: nil)
        }
        let blockSize = Int64(max(status.f_frsize, 1))
        let needed = sources.reduce(Int64(0)) { sum, source in
            sum + (source.allocatedBytes + blockSize - 1) / blockSize * blockSize
        }
        let available = Int64(clamping: status.f_bavail) * blockSize
        if needed + limits.reservedFreeBytes > available {
            throw InboxError(code: .insufficientSpace,
                             message: "the drop needs \(ByteCount(needed)) but only \(ByteCount(max(0, available - limits.reservedFreeBytes))) can be used on the file system of \(inboxPath.debugDescription) (\(ByteCount(limits.reservedFreeBytes)) are kept free); nothing was written. Free some space and drop again.")
        }
        if status.f_files > 0 && UInt64(status.f_favail) < UInt64(sources.count) {
            throw InboxError(code: .insufficientSpace,
                             message: "the file system of \(inboxPath.debugDescription) has no free inodes left for \(sources.count) files; nothing was written. Delete some files and drop again.")
        }
    }
}
