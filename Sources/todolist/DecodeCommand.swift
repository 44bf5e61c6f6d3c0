import ArgumentParser
import CourierURL
import Foundation
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
            let position = error.offset.map { " (at offset \($0))" } ?? ""
            FileHandle.standardError.write(Data("todolist: rejected URL\(position): \(error)\n".utf8))
            throw ExitCode(65)
        }
        let due = todo.due.localDateTime().minutesDescription
        if json {
            print("{\"task\":\(Self.jsonString(todo.task)),\"due\":\"\(due)\"}")
        } else {
            print("task \(todo.task)")
            print("due  \(due)")
        }
    }

    static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
