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

    /// File systems whose files report a size that is not their content (`statfs(2)` magic numbers):
    /// procfs says 0 bytes, sysfs 4096, the others 0 — a copy of `st_size` bytes would be empty or cut.
    static let pseudoFileSystems: [Int: String] = [
        0x9FA0: "procfs (/proc)", 0x6265_6572: "sysfs (/sys)", 0x6462_6720: "debugfs", 0x7472_6163: "tracefs",
        0x7363_6673: "securityfs", 0x6265_6570: "configfs", 0x6367_7270: "cgroup2", 0x0027_E0EB: "cgroup",
        0x6165_676C: "pstore", 0xCAFE_4A11: "bpffs", 0xDE5E_81E4: "efivarfs",
    ]

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

        if let fileSystem = (try? Sys.fileSystemType(fd)).flatMap({ SourceFile.pseudoFileSystems[$0] }) {
            throw refuse(.untrustedSize, "is a file of \(fileSystem), whose size (\(status.st_size) bytes) is not its content, so it cannot be copied as a file",
                         "copy it into a regular file first (cat FILE > copy.txt) and drop the copy.")
        }

        // Reading the head both proves the descriptor readable and feeds the type check. An empty
        // file is read too: one that holds bytes is not what its size says.
        let headLength = status.st_size == 0 ? 1 : Int(min(Int64(DropCandidate.sniffLength), Int64(status.st_size)))
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
        if status.st_size == 0, !head.isEmpty {
            throw refuse(.untrustedSize, "reports a size of 0 bytes but holds data, so its size cannot be trusted",
                         "copy it into a regular file first (cat FILE > copy.txt) and drop the copy.")
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
