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

    /// A status as one command's `--help` names it: the number from this table, the command's
    /// words for it (empty: the number alone).
    public typealias Said = (status: CourierExitCode, words: String)

    /// "0 done; 3 no such app; 73 cannot be saved": statuses as a command's `--help` lists them,
    /// every number taken from this table.
    public static func list(_ statuses: [Said]) -> String {
        statuses.map { $0.words.isEmpty ? "\($0.status.rawValue)" : "\($0.status.rawValue) \($0.words)" }.joined(separator: "; ")
    }

    /// "Exit status: 0 done; 3 no such app." for a command's `--help` (`then`: a sentence after).
    public static func help(_ statuses: [Said], then: String = "") -> String {
        "Exit status: \(list(statuses))." + (then.isEmpty ? "" : " " + then)
    }

    /// The statuses `courier open` and `can-open` exit with, for their `--help`.
    public static let openHelp = help([
        (.handled, "handled"), (.declined, "declined by the app"), (.invalidURL, "invalid URL"),
        (.noHandler, "no handler"), (.launchFailed, "launch failed"), (.launchTimeout, "launch timeout"),
        (.appFailed, "the app failed while handling"),
        (.notPermitted, "not permitted (or the app's bus name is held by another process)"),
        (.brokerUnavailable, "no broker reachable"), (.otherError, "any other error"),
        (.unanswered, "delivered but not answered by the caller's deadline (timeout-ms)"),
        (.withdrawn, "withdrawn unsent (that deadline passed while it waited)"),
        (.notResponding, "the app is not responding (hung, its pid named)"), (.usage, "usage error"),
    ], then: "With several URLs, the first failure's status.")

    /// The statuses `courier share` exits with, for its `--help`.
    public static let shareHelp = help([
        (.handled, "shared (or listed)"), (.declined, "the chosen app declined, or the choice was dismissed"),
        (.noHandler, "no activity fits every item"), (.launchFailed, "launch failed"), (.launchTimeout, "launch timeout"),
        (.appFailed, "the app or tool failed"), (.notPermitted, "not permitted"), (.brokerUnavailable, "no broker reachable"),
        (.otherError, "any other error (nobody can be asked: use --activity)"),
        (.invalidFile, "a FILE vanished or is not a regular file"), (.usage, "usage error"),
    ])

    /// The refusals only a drop meets, as `courier drop` and `courier open FILE` name them.
    public static let dropRefusals: [Said] = [
        (.invalidFile, "a FILE is not a readable regular file (folder, pipe, socket, device, deleted)"),
        (.limitsExceeded, "limits exceeded (too many files, a file or the drop too large)"),
        (.noSpace, "not enough free space for the drop"),
        (.unsafeContainer, "the app's container is unsafe (a symbolic link on the way to its Inbox)"),
        (.cannotOpen, "a FILE cannot be opened"),
    ]

    /// The statuses `courier drop` exits with, for its `--help`.
    public static let dropHelp = help([
        (.handled, "delivered and handled"), (.declined, "declined by the app"),
        (.noHandler, "no app for the type (or no such app)"), (.launchFailed, "launch failed"),
        (.launchTimeout, "launch timeout"), (.appFailed, "the app failed"),
        (.notPermitted, "not permitted (a type the app does not declare, or its bus name is held by another process)"),
        (.brokerUnavailable, "no broker reachable"), (.otherError, "any other error"),
    ] + dropRefusals + [(.usage, "usage error")])
}
