import ArgumentParser
import CourierTools
import CourierNames
import Foundation

extension CourierExitCode {
    /// The status for a failure of the library (`courier open`'s mapping).
    init(_ error: CourierError) { self.init(error.code) }

    /// What a command throws to exit with this status.
    var exitCode: ExitCode { ExitCode(rawValue) }
}

extension CourierError {
    /// Says the error as one line on standard error, `PREFIX: message`, and gives the status to
    /// exit with (`courier open`'s mapping): how every command that talks to the broker fails.
    func reported(_ prefix: String) -> ExitCode {
        FileHandle.standardError.write(Data("\(prefix): \(message)\n".utf8))
        return CourierExitCode(self).exitCode
    }
}
