import ArgumentParser
import Courier
import CourierShareOptions
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `todolist share`: the share sheet from the example app (docs/share.md). The whole list goes as
/// a lazy item — a text file written only once an activity is chosen, as `UIActivityItemSource`
/// — or one task as text with `--task N`.
struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share the task list (or one task) with another app, the clipboard, a folder or a nearby device."
    )

    @Option(name: .long, help: "Share only task N (1 is the first of `todolist list`), as text.")
    var task: Int?

    @OptionGroup var sharing: ShareSheetOptions

    /// The list, rendered only for the activity chosen.
    struct TaskList: ShareItemSource {
        let store: TodoStore
        var placeholder: ShareItem { .data(Data(), type: "public.plain-text", name: "Todo List.txt") }
        func item(for activity: ShareActivity) async throws -> ShareItem {
            let lines = try await store.items().map { $0.line + "\n" }.joined()
            return .data(Data(lines.utf8), type: "public.plain-text", name: "Todo List.txt")
        }
    }

    struct Sharer: ApplicationDelegate {}

    func run() async throws {
        let id = TodoListCommand.currentBundleID
        let store = TodoStore(bundleID: id)
        var item = ShareItem.source(TaskList(store: store))
        if let task {
            let items = try await store.items()
            guard items.indices.contains(task - 1) else {
                throw ValidationError("there is no task \(task): the list has \(items.count) (todolist list shows them)")
            }
            item = .text(items[task - 1].line)
        }
        do {
            let application = try Application(bundleID: id, delegate: Sharer())
            let chooser: (any ShareChooser)? = sharing.activity.map { NamedShareChooser(id: $0, folder: sharing.folder) }
            let outcome = try await application.share([item], excluding: sharing.excluded, chooser: chooser)
            for place in outcome.delivered { printLine(place) }
        } catch {
            printLine("todolist share: \(error.message)", to: STDERR_FILENO)
            throw ExitCode(CourierExitCode(dropping: error.code).rawValue)
        }
    }
}
