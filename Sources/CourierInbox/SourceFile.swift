#if canImport(Glibc)
import Glibc
#endif

/// A sender's descriptor that passed every check: readable, a regular file, still linked.
struct SourceFile {
    let index: Int
    let descriptor: Int32
    let suggestedName: String
    let fileName: InboxFileName
    /// Apparent size (`st_size`).
    let size: Int64
    /// Bytes the copy will allocate at most: holes are not copied, so a sparse file needs only
    /// what its blocks hold.
    let allocatedBytes: Int64
    let leadingBytes: [UInt8]
    /// The file has no name (`st_nlink` 0): an unnamed (`O_TMPFILE`) file its writer filled for
    /// this drop, which the Inbox links into place instead of copying when it is on the Inbox's
    /// file system (``Inbox/openUnnamedFile(for:)``), or a deleted file, refused.
    let isUnnamed: Bool
    /// The file system it is on (`st_dev`).
    let device: UInt64

    var label: String { fileLabel(index: index, suggestedName: suggestedName) }

    var candidate: DropCandidate {
        DropCandidate(index: index, suggestedName: suggestedName, fileName: fileName, size: size,
                      leadingBytes: leadingBytes, descriptor: descriptor)
    }

    /// Checks `file` and reads its first bytes; throws a typed error saying what the descriptor is
    /// instead and what to pass.
    init(inspecting file: DropFile, index: Int) throws(InboxError) {
        let suggestedName = file.suggestedNameText
        let label = fileLabel(index: index, suggestedName: suggestedName)
        let fd = file.descriptor
        func refuse(_ code: InboxError.Code, _ problem: String, _ remedy: String, errno: Int32? = nil) -> InboxError {
            InboxError(code: code, message: "\(label) \(problem); \(remedy)", fileIndex: index, errno: errno)
        }

        let flags: Int32
        do {
            flags = try Sys.statusFlags(fd)
        } catch {
            throw refuse(.notReadable, "is not an open file descriptor (\(error))", "pass a descriptor opened for reading.", errno: error.rawValue)
        }
        if flags & Sys.pathOnlyFlag != 0 {
            throw refuse(.notReadable, "was opened with O_PATH, which cannot be read", "open it with O_RDONLY instead.")
        }
        if flags & O_ACCMODE == O_WRONLY {
            throw refuse(.notReadable, "was opened write-only", "open it for reading (O_RDONLY).")
        }

        let status: stat
        do {
            status = try Sys.fileStatus(fd)
        } catch {
            throw refuse(.notReadable, "cannot be inspected (fstat: \(error))", "pass an open regular file.", errno: error.rawValue)
        }
        let kind = status.st_mode & S_IFMT
        if kind != S_IFREG {
            let what: String = switch kind {
            case S_IFDIR: "is a directory"
            case S_IFIFO: "is a pipe (FIFO)"
            case S_IFSOCK: "is a socket"
            case S_IFCHR: "is a character device"
            case S_IFBLK: "is a block device"
            case S_IFLNK: "is a symbolic link"
            default: "is not a regular file"
            }
            throw refuse(.notRegularFile, what, "only regular files can be dropped (for a folder, drop the files in it).")
        }

        // Reading the head both proves the descriptor readable and feeds the type check.
        let headLength = Int(min(Int64(DropCandidate.sniffLength), Int64(status.st_size)))
        var head = [UInt8](repeating: 0, count: headLength)
        if headLength > 0 {
            let result = head.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try Sys.read(fd, into: buffer, at: 0) }
            }
            let count: Int
            switch result {
            case .success(let read): count = read
            case .failure(let error):
                throw refuse(.notReadable, "cannot be read (\(error))", "pass a descriptor opened for reading.", errno: error.rawValue)
            }
            head.removeSubrange(count...)
        }

        self.index = index
        self.descriptor = fd
        self.suggestedName = suggestedName
        self.fileName = InboxFileName(suggested: file.suggestedName)
        self.size = Int64(status.st_size)
        self.allocatedBytes = min(Int64(status.st_size), Int64(status.st_blocks) * 512)
        self.leadingBytes = head
        self.isUnnamed = status.st_nlink == 0
        self.device = UInt64(status.st_dev)
    }
}
