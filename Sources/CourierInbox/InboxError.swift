public import CourierNames

/// Why a drop was refused or failed: what was wrong, with which file, and what to do.
///
/// A struct with an open `Code` (not a closed enum) so that new reasons can be added without
/// breaking callers; `message` is complete on its own and safe to show to a person. The broker maps
/// `code` to an `org.courier.Error.*` name with `courierErrorName`.
public struct InboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure: an open set (a struct with static members, the swift-system habit).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The descriptor is not a regular file (directory, pipe, socket, device, …).
        public static let notRegularFile = Code(rawValue: "not-regular-file")
        /// The descriptor cannot be read (`O_PATH`, write-only, or not open at all).
        public static let notReadable = Code(rawValue: "not-readable")
        /// The file has no name left on disk (`st_nlink == 0`).
        public static let deletedFile = Code(rawValue: "deleted-file")
        /// The file's size is not its content (a file of `/proc` or `/sys`: `st_size` 0 or 4096
        /// whatever it holds), so a copy of `st_size` bytes would deliver an empty or cut file.
        public static let untrustedSize = Code(rawValue: "untrusted-size")
        /// The file's type is not one the receiving app declares.
        public static let notPermitted = Code(rawValue: "not-permitted")
        /// One file is larger than `DropLimits.maximumFileBytes`.
        public static let fileTooLarge = Code(rawValue: "file-too-large")
        /// The files together are larger than `DropLimits.maximumDropBytes`.
        public static let dropTooLarge = Code(rawValue: "drop-too-large")
        /// More files than `DropLimits.maximumFileCount`.
        public static let tooManyFiles = Code(rawValue: "too-many-files")
        /// The Inbox's file system has not enough free space (or inodes) for the drop.
        public static let insufficientSpace = Code(rawValue: "insufficient-space")
        /// A folder on the way to the Inbox is a symbolic link or not a folder.
        public static let unsafeFolder = Code(rawValue: "unsafe-folder")
        /// The bundle identifier cannot name a container folder.
        public static let invalidBundleIdentifier = Code(rawValue: "invalid-bundle-identifier")
        /// The request itself is malformed (e.g. no files).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// The source file shrank while it was being copied.
        public static let sourceChanged = Code(rawValue: "source-changed")
        /// Every candidate name (`Name-1` … `Name-N`) is taken.
        public static let namesExhausted = Code(rawValue: "names-exhausted")
        /// A system call failed for another reason (see `errno`).
        public static let ioFailure = Code(rawValue: "io-failure")
    }

    public let code: Code
    /// The whole explanation: what, where, what to do.
    public let message: String
    /// The position of the offending file in the drop (0-based), when one file is at fault.
    public let fileIndex: Int?
    /// The `errno` behind the failure, when a system call failed.
    public let errno: Int32?

    public init(code: Code, message: String, fileIndex: Int? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.fileIndex = fileIndex
        self.errno = errno
    }

    public var description: String { message }

    /// The Courier error this failure is answered with on the bus (`CourierErrorCode`, the shared
    /// table): `NotPermitted`, `InvalidFile`, `InvalidArguments`, `LimitsExceeded`, `NoSpace`,
    /// `UnsafeContainer`, or `Failed`.
    public var courierErrorCode: CourierErrorCode {
        switch code {
        case .notPermitted: .notPermitted
        case .notRegularFile, .notReadable, .deletedFile, .untrustedSize: .invalidFile
        case .invalidBundleIdentifier, .invalidRequest: .invalidArguments
        case .fileTooLarge, .dropTooLarge, .tooManyFiles: .limitsExceeded
        case .insufficientSpace: .noSpace
        case .unsafeFolder: .unsafeContainer
        default: .failed
        }
    }

    /// The D-Bus error name for this failure (`org.courier.Error.NotPermitted`, …).
    public var courierErrorName: String { courierErrorCode.dbusName }

    /// The refusal a type policy throws: the file's type is not one the app declares.
    /// - Parameters:
    ///   - foundType: the type identifier found (e.g. `public.shell-script`).
    ///   - accepted: what the app accepts, for the message (e.g. `public.plain-text`).
    public static func notPermitted(_ candidate: DropCandidate, foundType: String, bundleIdentifier: String,
                                    accepted: [String]) -> InboxError {
        let acceptedList = accepted.isEmpty ? "no document types at all" : accepted.joined(separator: ", ")
        return InboxError(
            code: .notPermitted,
            message: "\(candidate.label) is of type \(foundType), which \(bundleIdentifier) does not declare as a document type (it accepts \(acceptedList)); nothing was written. Send a file of an accepted type, or drop it on another app.",
            fileIndex: candidate.index)
    }

    /// A system call failed on file `index`.
    static func io(_ error: Errno, _ operation: String, file label: String?, index: Int? = nil) -> InboxError {
        let subject = label.map { " for \($0)" } ?? ""
        return InboxError(code: .ioFailure, message: "\(operation) failed\(subject): \(error) (errno \(error.rawValue)); nothing was left in the Inbox.",
                          fileIndex: index, errno: error.rawValue)
    }
}

/// How a file is named in messages: its position and the name it was offered under, escaped.
func fileLabel(index: Int, suggestedName: String) -> String {
    "file \(index + 1) (\(suggestedName.debugDescription))"
}
