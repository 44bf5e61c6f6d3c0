import ArgumentParser
import Courier

/// The exit codes of `courier drop` (documented in `courier drop --help` and docs/inbox.md): the
/// outcomes it shares with `courier open` keep `OpenExitCode`'s numbers; the refusals only a drop
/// can meet have their own, so a script can tell "the file is a folder" from "the disk is full".
enum DropExitCode: Int32, CaseIterable {
    case delivered = 0
    case declined = 1
    case noHandler = 3
    case launchFailed = 4
    case launchTimeout = 5
    case appFailed = 6
    case notPermitted = 7
    case brokerUnavailable = 8
    case otherError = 9
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

    /// The drop's own refusals by name; every other outcome as `courier open` reports it.
    init(_ error: CourierError) {
        switch error.code {
        case .invalidFile: self = .invalidFile
        case .limitsExceeded: self = .limitsExceeded
        case .noSpace: self = .noSpace
        case .unsafeContainer: self = .unsafeContainer
        default: self = DropExitCode(rawValue: OpenExitCode(error).rawValue) ?? .otherError
        }
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
