import ArgumentParser
import Courier

/// The exit statuses only `courier drop` has (documented in `courier drop --help` and
/// docs/inbox.md): one per refusal a drop can meet and `courier open` cannot, so that a script can
/// tell "the file is a folder" from "the disk is full". Every other outcome (declined, no handler,
/// launch failed, no broker, …) exits with `OpenExitCode`'s number.
enum DropExitCode: Int32, CaseIterable {
    /// `org.courier.Error.InvalidFile`: a FILE is not a readable regular file.
    case invalidFile = 10
    /// `org.courier.Error.LimitsExceeded`: too many files, or a file or the drop too large.
    case limitsExceeded = 11
    /// `org.courier.Error.NoSpace`: the Inbox's disk has no room for the drop.
    case noSpace = 12
    /// `org.courier.Error.UnsafeContainer`: a folder on the way to the app's Inbox is a symbolic link.
    case unsafeContainer = 13
    /// A FILE cannot be opened by `courier drop` itself (EX_NOINPUT).
    case cannotOpen = 66

    /// The drop's own refusals, by name; `nil` for an outcome `courier open` shares.
    init?(_ error: CourierError) {
        switch error.code {
        case .invalidFile: self = .invalidFile
        case .limitsExceeded: self = .limitsExceeded
        case .noSpace: self = .noSpace
        case .unsafeContainer: self = .unsafeContainer
        default: return nil
        }
    }

    /// The status `courier drop` exits with for `error`.
    static func exitCode(for error: CourierError) -> ExitCode {
        DropExitCode(error)?.exitCode ?? OpenExitCode(error).exitCode
    }

    static let help = """
        Exit status: 0 delivered and handled; 1 declined by the app; 3 no app for the type (or no \
        such app); 4 launch failed; 5 launch timeout; 6 the app failed; 7 not permitted (a type \
        the app does not declare); 8 no broker reachable; 9 any other error; 10 a FILE is not a \
        readable regular file (folder, pipe, socket, device, deleted); 11 limits exceeded (too \
        many files, a file or the drop too large); 12 not enough free space for the drop; 13 the \
        app's container is unsafe (a symbolic link on the way to its Inbox); 66 a FILE cannot be \
        opened; 64 usage error.
        """

    var exitCode: ExitCode { ExitCode(rawValue) }
}
