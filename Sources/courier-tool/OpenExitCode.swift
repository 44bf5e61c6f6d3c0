import ArgumentParser
import Courier

/// The exit codes of `courier open` and `courier can-open` (documented in docs/broker.md and in
/// `courier open --help`): one per outcome a script may want to tell apart.
enum OpenExitCode: Int32, CaseIterable {
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

    init(_ error: CourierError) {
        switch error.code {
        case .invalidURL: self = .invalidURL
        case .noHandler: self = .noHandler
        case .launchFailed: self = .launchFailed
        case .launchTimeout: self = .launchTimeout
        case .appFailed: self = .appFailed
        case .notPermitted: self = .notPermitted
        case .declined: self = .declined
        case .brokerUnavailable: self = .brokerUnavailable
        default: self = .otherError
        }
    }

    static let help = """
        Exit status: 0 handled; 1 declined by the app; 2 invalid URL; 3 no handler; 4 launch failed; \
        5 launch timeout; 6 the app failed while handling; 7 not permitted; 8 no broker reachable; \
        9 any other error; 64 usage error. With several URLs, the first failure's status.
        """

    var exitCode: ExitCode { ExitCode(rawValue) }
}
