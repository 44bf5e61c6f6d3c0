import ArgumentParser
import Courier
import CourierNames

extension CourierExitCode {
    /// The status for a failure of the library (`courier open`'s mapping).
    init(_ error: CourierError) { self.init(error.code) }

    /// What a command throws to exit with this status.
    var exitCode: ExitCode { ExitCode(rawValue) }
}
