import FoundationEssentials

/// One stored task of the todolist app.
struct TodoItem: Codable, Sendable, Hashable {
    /// The task name, exactly as decoded from the URL.
    var task: String
    /// Local wall-clock due time, `yyyy-MM-dd HH:mm`.
    var due: String
    /// Who asked (the source application, "" when not an app).
    var source: String

    /// The line `todolist list` and the app print for this item: the task alone when it has no
    /// due time.
    var line: String { due.isEmpty ? task : "\(task) — due \(due)" }
}
