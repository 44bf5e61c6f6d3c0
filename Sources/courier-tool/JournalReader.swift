import CourierProcess
import CourierNames
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An app's output in the journal, where the broker streams it when journald runs: `journalctl -t
/// BUNDLE_ID`, this user's entries only, as the messages alone (`courier log`, `courier status ID`).
struct JournalReader {
    /// Why the journal cannot be read.
    enum Failure: Error, CustomStringConvertible {
        case noJournalctl
        case cannotRun(String, any Error)
        case failed(String, Int32)

        var description: String {
            switch self {
            case .noJournalctl: "journalctl is not on PATH: install systemd's journalctl"
            case .cannotRun(let command, let error): "\(command) could not be run: \(error)"
            case .failed(let command, let status): "\(command) failed (exit \(status))"
            }
        }
    }

    let journalctl: String

    init() throws(Failure) {
        guard let path = SearchPath.find("journalctl", in: ProcessInfo.processInfo.environment["PATH"]) else { throw .noJournalctl }
        journalctl = path
    }

    /// `journalctl`'s arguments for `bundleID`'s entries, the last `lines` of them when given.
    func arguments(for bundleID: String, lines: Int?) -> [String] {
        var arguments = ["-t", bundleID, "_UID=\(getuid())", "-o", "cat", "--no-pager", "-q"]
        if let lines, lines >= 0 { arguments += ["-n", String(lines)] }
        return arguments
    }

    /// The entries' text.
    func read(_ bundleID: String, lines: Int?) throws(Failure) -> Data {
        let arguments = arguments(for: bundleID, lines: lines)
        let command = "\(journalctl) \(arguments.joined(separator: " "))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journalctl)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { throw .cannotRun(command, error) }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw .failed(command, process.terminationStatus) }
        return output
    }
}
