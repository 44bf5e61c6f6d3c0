import ArgumentParser
import Courier
import FoundationEssentials

/// `todolist list`: prints the stored items, one line each, from the same container the app uses
/// (`COURIER_CONTAINER`, else `$XDG_DATA_HOME/courier/containers/com.acme.todolist`).
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the stored tasks, one line each."
    )

    @Flag(name: .long, help: "Print the stored JSON instead.")
    var json = false

    func run() async throws {
        let id = ProcessInfo.processInfo.environment["COURIER_BUNDLE_ID"] ?? TodoListCommand.bundleID
        let documents = Application.defaultDocuments(bundleID: id)
        let store = TodoStore(documents: documents)
        if json {
            let data = FileManager.default.contents(atPath: store.fileURL.path) ?? Data("[]\n".utf8)
            writeOut(Array(data))
            return
        }
        for item in try await store.items() { printLine(item.line) }
    }
}
