/// The exit statuses of every `courier` command: the one table, shared by the static front (which
/// answers `courier open` itself) and `courier-tool` (every command), documented in docs/broker.md
/// and in each command's `--help`. One status per outcome a script may want to tell apart.
public enum CourierExitCode: Int32, CaseIterable, Sendable {
    case handled = 0
    case declined = 1
    case invalidURL = 2
    case noHandler = 3
    case launchFailed = 4
    case launchTimeout = 5
    case appFailed = 6
    case notPermitted = 7
    case brokerUnavailable = 8
    case otherError = 9
    // The refusals only a drop meets (`courier drop`).
    /// `org.courier.Error.InvalidFile`: a FILE is not a readable regular file.
    case invalidFile = 10
    /// `org.courier.Error.LimitsExceeded`: too many files, or a file or the drop too large.
    case limitsExceeded = 11
    /// `org.courier.Error.NoSpace`: the Inbox's disk has no room for the drop.
    case noSpace = 12
    /// `org.courier.Error.UnsafeContainer`: a folder on the way to the app's Inbox is a symbolic link.
    case unsafeContainer = 13
    // A caller's deadline, and a hung app (`courier open`, `drop`, `quit`).
    /// `org.courier.Error.Unanswered`: delivered, not answered by the caller's deadline (`timeout-ms`).
    case unanswered = 14
    /// `org.courier.Error.Withdrawn`: not delivered; the caller's deadline passed while it waited.
    case withdrawn = 15
    /// `org.courier.Error.NotResponding`: the app's process is hung (the message names its pid).
    case notResponding = 16
    // sysexits(3), for what is wrong on this side.
    /// The command line is wrong (EX_USAGE; ArgumentParser's own).
    case usage = 64
    /// The input was read and refused: a manifest with errors, a bad URL or scheme (EX_DATAERR).
    case refused = 65
    /// An input file cannot be opened (EX_NOINPUT).
    case cannotOpen = 66
    /// An output file cannot be written (EX_CANTCREAT).
    case cannotWrite = 73

    /// No such app: a bundle id no manifest registers, whichever command names it (`quit`,
    /// `unregister`, `drop --to`, `default`, `log`, `open -b`): the status of "no handler".
    public static let unknownApp = CourierExitCode.noHandler
    /// A question answered "nothing" (`courier default SCHEME` when no default is set): status 1,
    /// like grep(1) finding no match. The same number as `declined`, the app's "no".
    public static let notSet = CourierExitCode.declined

    /// What the status means, one line (docs/cli.md's table is generated from it).
    public var meaning: String {
        switch self {
        case .handled: "done: handled (`--dry-run`: resolvable); `quit` of an app that is not running"
        case .declined: "declined by the app; a question answered \"nothing\" (`courier default --show` with no default set)"
        case .invalidURL: "invalid URL"
        case .noHandler: "no app handles it, or no such app (a bundle id nothing registers, in any command)"
        case .launchFailed: "launch failed"
        case .launchTimeout: "launch timeout"
        case .appFailed: "the app failed while handling"
        case .notPermitted: "not permitted (a caller rule, a type the app does not declare, the app's bus name is held by another process, or the app is disabled: `courier enable`)"
        case .brokerUnavailable: "no broker reachable (`ps`, `quit`, `status`: none is running)"
        case .otherError: "any other error"
        case .invalidFile: "a FILE is not a readable regular file (folder, pipe, socket, device, deleted)"
        case .limitsExceeded: "limits exceeded (too many files, a file or the drop too large)"
        case .noSpace: "not enough free space (or inodes) for the drop"
        case .unsafeContainer: "the app's container is unsafe (a symbolic link on the way to its Inbox)"
        case .unanswered: "delivered, but not answered by the caller's deadline (`timeout-ms`); the app may still act on it"
        case .withdrawn: "withdrawn unsent: the caller's deadline passed while it waited (safe to send again)"
        case .notResponding: "the app is not responding (hung; the message names its pid), or `quit` did not see it go within `--timeout`"
        case .usage: "usage error"
        case .refused: "the input was read and refused (a manifest with errors, an invalid scheme, type or bundle id)"
        case .cannotOpen: "an input file cannot be opened (a FILE, a manifest, an app's log)"
        case .cannotWrite: "an output file cannot be written (the user's manifests or defaults)"
        }
    }

    /// The Markdown table of every status, as docs/cli.md shows it.
    public static var markdownTable: String {
        "| exit | meaning |\n|---|---|\n" + allCases.map { "| \($0.rawValue) | \($0.meaning) |\n" }.joined()
    }

    /// `courier open`'s status for a failure (also every command's that talks to the broker):
    /// the drop's own refusals count as `otherError` here.
    public init(_ code: CourierErrorCode) {
        switch code {
        case .invalidURL: self = .invalidURL
        case .noHandler, .noActivity: self = .noHandler
        case .launchFailed: self = .launchFailed
        case .launchTimeout: self = .launchTimeout
        case .appFailed: self = .appFailed
        case .unanswered: self = .unanswered
        case .withdrawn: self = .withdrawn
        case .notResponding: self = .notResponding
        case .notPermitted, .nameSquatted, .disabled: self = .notPermitted
        case .declined, .dismissed: self = .declined
        case .brokerUnavailable: self = .brokerUnavailable
        default: self = .otherError
        }
    }

    /// `courier drop`'s status for a failure: the drop's own refusals by name, else as `open`.
    public init(dropping code: CourierErrorCode) {
        switch code {
        case .invalidFile: self = .invalidFile
        case .limitsExceeded: self = .limitsExceeded
        case .noSpace: self = .noSpace
        case .unsafeContainer: self = .unsafeContainer
        default: self.init(code)
        }
    }

    /// The statuses `courier open`, `can-open` and `handlers` exit with, for their `--help`.
    public static let openHelp = """
        Exit status: 0 handled; 1 declined by the app; 2 invalid URL; 3 no handler; 4 launch failed; \
        5 launch timeout; 6 the app failed while handling; 7 not permitted (or the app's bus name is \
        held by another process); 8 no broker reachable; \
        9 any other error; 14 delivered but not answered by the caller's deadline (timeout-ms); 15 \
        withdrawn unsent (that deadline passed while it waited); 16 the app is not responding (hung, \
        its pid named); 64 usage error. With several URLs, the first failure's status.
        """

    /// The statuses `courier share` exits with, for its `--help`.
    public static let shareHelp = """
        Exit status: 0 shared (or listed); 1 the chosen app declined, or the choice was dismissed; \
        3 no activity fits every item; 4 launch failed; 5 launch timeout; 6 the app or tool failed; \
        7 not permitted; 8 no broker reachable; 9 any other error (nobody can be asked: use \
        --activity); 10 a FILE vanished or is not a regular file; 64 usage error.
        """

    /// The statuses `courier drop` exits with, for its `--help`.
    public static let dropHelp = """
        Exit status: 0 delivered and handled; 1 declined by the app; 3 no app for the type (or no \
        such app); 4 launch failed; 5 launch timeout; 6 the app failed; 7 not permitted (a type \
        the app does not declare, or its bus name is held by another process); 8 no broker reachable; 9 any other error; 10 a FILE is not a \
        readable regular file (folder, pipe, socket, device, deleted); 11 limits exceeded (too \
        many files, a file or the drop too large); 12 not enough free space for the drop; 13 the \
        app's container is unsafe (a symbolic link on the way to its Inbox); 66 a FILE cannot be \
        opened; 64 usage error.
        """
}
