import Courier
import FoundationEssentials

/// File drops: the todolist declares plain text (`public.plain-text` in its manifest), so a `.txt`
/// dropped on it (`courier drop list.txt --to com.acme.todolist`) arrives in its
/// `Documents/Inbox` and is opened with `inbox=true`; each non-empty line becomes a task.
extension TodoAppDelegate {
    /// The path of a dropped file, when `url` is one: a `file://` URL the broker vouches it dropped
    /// (`inbox`, a broker fact no caller can set) naming a file inside this app's own Inbox. nil
    /// for any other URL — a `file:` URL without the broker's word, or pointing elsewhere (another
    /// app's Inbox included), is not a drop.
    static func droppedFilePath(_ url: String, inbox: Bool, bundleID: String) -> String? {
        guard inbox, url.hasPrefix("file://"), let parsed = URL(string: url), parsed.isFileURL,
              AppInbox.contains(parsed, bundleIdentifier: bundleID) else { return nil }
        return parsed.path
    }

    /// Adds one task per non-empty line of the dropped text file, all in one write of the store.
    func importTasks(fromDroppedFile path: String, sourceApplication: String) async -> OpenURLResult {
        guard let data = FileManager.default.contents(atPath: path) else {
            printLine("todolist: cannot read the dropped file \(path)")
            return false
        }
        let lines = String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { line in   // trimmed of white space (not `CharacterSet`, which is not in FoundationEssentials)
                let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
                let end = line.lastIndex { !$0.isWhitespace }.map(line.index(after:)) ?? start
                return String(line[start..<end])
            }
            .filter { !$0.isEmpty }
        let name = URL(fileURLWithPath: path).lastPathComponent
        let count: Int
        do {
            count = try await store.append(contentsOf: lines.map { TodoItem(task: $0, due: "", source: sourceApplication) }).count
        } catch {
            printLine("todolist: cannot store the \(lines.count) tasks of \(name): \(error)")
            return false
        }
        printLine("todolist: added \(lines.count) task\(lines.count == 1 ? "" : "s") from \(name)")
        return OpenURLResult(handled: true, reply: ["added": .uint32(UInt32(lines.count)), "count": .uint32(UInt32(count))])
    }
}
