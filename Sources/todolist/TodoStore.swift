import Courier
import FoundationEssentials

/// The todolist's items, as JSON in `Documents/todolist.json` of its container. Every change is
/// written to a temporary file in the same folder and renamed over the old one, so a reader (such
/// as `todolist list` in a shell) never sees a half-written file.
actor TodoStore {
    let fileURL: URL

    /// The store in the Documents of the app `bundleID` (`Application.defaultDocuments`).
    init(bundleID: String) {
        fileURL = Application.defaultDocuments(bundleID: bundleID).appendingPathComponent("todolist.json")
    }

    /// The stored items (none when the file does not exist yet).
    func items() throws -> [TodoItem] {
        try Self.read(fileURL)
    }

    /// Appends `item` and returns the whole list.
    func append(_ item: TodoItem) throws -> [TodoItem] {
        try append(contentsOf: [item])
    }

    /// Appends `newItems` with one write of the file (a dropped list of thousands of lines costs
    /// one write, not one per line) and returns the whole list.
    func append(contentsOf newItems: [TodoItem]) throws -> [TodoItem] {
        var items = try Self.read(fileURL)
        items.append(contentsOf: newItems)
        try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(items).write(to: fileURL, options: .atomic)
        return items
    }

    static func read(_ url: URL) throws -> [TodoItem] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        do {
            return try JSONDecoder().decode([TodoItem].self, from: data)
        } catch {
            throw StoreError(message: "\(url.path) is not a todolist file (\(error)); move it away to start a new list")
        }
    }
}

struct StoreError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
