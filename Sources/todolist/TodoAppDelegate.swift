import Courier
import CourierURL
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TodoListKit

/// The guide's Listing 6-2 on Courier: a `todolist://` URL becomes a stored task.
struct TodoAppDelegate: ApplicationDelegate {
    let store: TodoStore
    var session = TodoSession()

    /// Declines a launch URL that is not a todolist task, before anything is stored (Figure 6-1).
    func willFinishLaunching(_ application: Application, options: ApplicationLaunchOptions) -> Bool {
        guard let url = options.url, Self.droppedFilePath(url, inbox: options.inbox, bundleID: application.bundleID) == nil else { return true }
        if case .failure(let error) = Result(catching: { () throws(TodoURLError) in try TodoURL(url) }) {
            printLine("todolist: declined \(url): \(error)")
            return false
        }
        return true
    }

    func openWithReply(_ url: String, options: OpenURLOptions, application: Application) async -> OpenURLResult {
        if let path = Self.droppedFilePath(url, inbox: options.inbox, bundleID: application.bundleID) {
            return await importTasks(fromDroppedFile: path, sourceApplication: options.sourceApplication)
        }
        let todo: TodoURL
        do {
            todo = try TodoURL(url)
        } catch {
            printLine("todolist: declined \(url): \(error)")
            return false
        }
        // "yyyy-MM-ddTHH:mm" with a space for the T. Not Foundation's `replacingOccurrences`: its
        // first call is ~1 M instructions of generic set-up (the runtime's protocol-conformance
        // searches) on a cold open's first URL.
        let due = String(todo.due.localDateTime().minutesDescription.map { $0 == "T" ? " " : $0 })
        let item = TodoItem(task: todo.task, due: due, source: options.sourceApplication)
        do {
            let items = try await store.append(item)
            printLine("todolist: added \(item.line)")
            var reply: [String: CourierValue] = ["task": .string(item.task), "due": .string(due), "count": .uint32(UInt32(items.count))]
            // What was on screen before this task: after a relaunch, the restored one.
            if let previous = session.show(item.task, due: due).lastShown { reply["last-shown"] = .string(previous) }
            return OpenURLResult(handled: true, reply: reply)
        } catch {
            printLine("todolist: cannot store \(item.task): \(error)")
            return false
        }
    }
}

/// State preservation: the session (the task last shown) is saved when the broker terminates the
/// app, and restored on the next launch when it was written by this version.
extension TodoAppDelegate {
    func shouldSaveApplicationState(_ application: Application) async -> Bool { true }

    func willEncodeRestorableState(_ application: Application, coder: inout RestorableStateCoder) async {
        session.encode(into: &coder)
    }

    func shouldRestoreApplicationState(_ application: Application, coder: RestorableStateCoder) async -> Bool {
        guard coder.bundleVersion == application.version else {
            printLine("todolist: not restoring the state saved by version \(coder.bundleVersion) (this is \(application.version))")
            return false
        }
        return true
    }

    func didDecodeRestorableState(_ application: Application, coder: RestorableStateCoder) async {
        if session.restore(from: coder) {
            printLine("todolist: restored; last shown: \(session.current.lastShown ?? "nothing")")
        }
    }

    func willTerminate(_ application: Application) async {
        printLine("todolist: terminating")
    }
}

/// One line on stdout (or `descriptor`), written at once (stdout may be a pipe to the broker's log).
/// Errors are ignored: an app started by bus activation may have a stdout nobody reads.
func printLine(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    writeOut(Array((line + "\n").utf8), to: descriptor)
}

/// `bytes` to `descriptor` (standard output unless said), at once; errors ignored as for `printLine`.
/// (Not `FileHandle`: the todolist links FoundationEssentials only — see docs/PERFORMANCE.md.)
func writeOut(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) {
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
