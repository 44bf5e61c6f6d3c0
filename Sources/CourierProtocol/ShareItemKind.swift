/// How a shared item travels: the `kind` of each `(kind, name, type)` row of
/// `Broker1.shareActivities`' items (`a(sss)`).
public enum ShareItemKind: String, Sendable, Hashable, CaseIterable {
    /// An open file (the next of the call's `ah`); `name` is its file name.
    case file
    /// A URL, in `name`: offered to the apps that claim its scheme.
    case url
    /// Plain text (delivered as a `.txt` file where it is dropped); the words stay with the caller.
    case text
    /// Bytes of a declared type: `type`, delivered as a file named `name`.
    case data
}
