import ArgumentParser
import CourierURL
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TodoListKit

/// `todolist decode URL [--json]`: decode a todolist URL the way the app does, without storing
/// anything. Exit 65 (EX_DATAERR) with the reason on stderr when the URL is refused.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a todolist URL into its task and due date (local time).")

    @Argument(help: "A todolist URL, e.g. 'todolist://www.acme.com?Quarterly%20Report#200806231300'.")
    var url: String

    @Flag(help: "Print {\"task\":…,\"due\":…} as JSON.")
    var json = false

    func run() throws {
        let todo: TodoURL
        do {
            todo = try TodoURL(url)
        } catch {
            let report = RefusedURLReport(program: "todolist", headline: "rejected URL", reason: "\(error)", input: url, offset: error.offset)
            writeOut(Array(report.description.utf8), to: STDERR_FILENO)
            throw ExitCode(RefusedURLReport.exitStatus)
        }
        let due = todo.due.localDateTime().minutesDescription
        if json {
            print("{\"task\":\(jsonStringLiteral(todo.task)),\"due\":\"\(due)\"}")
        } else {
            print("task \(todo.task)")
            print("due  \(due)")
        }
    }
}
