public import FoundationEssentials

/// Something an app or a person shares (docs/share.md): a file, a URL, text, bytes of a declared
/// type, or a source that produces one of those only for the activity chosen.
public enum ShareItem: Sendable {
    /// A file, by path. It is opened when the activities are listed and read again when the
    /// chosen activity runs: one removed in between is refused (`InvalidFile`), nothing shared.
    case file(path: String)
    /// A URL: offered to the apps that claim its scheme, to the clipboard.
    case url(String)
    /// Plain text: to the clipboard, or as a `.txt` file to an app or a folder.
    case text(String)
    /// Bytes of the type `type` (a type identifier, e.g. `public.png`), with a file name for
    /// the apps and folders that receive them.
    case data(Data, type: String, name: String)
    /// Produces its item lazily: the sheet lists activities from its `placeholder`, and asks it
    /// for the real item only for the activity chosen (`UIActivityItemSource`).
    case source(any ShareItemSource)

    /// What the sheet lists by: the item, or a source's placeholder.
    var listed: ShareItem {
        if case .source(let source) = self { return source.placeholder }
        return self
    }

    /// The text a nearby device gets as a LocalSend text message: a URL's or a text's own.
    var messageText: String? {
        switch self {
        case .url(let text), .text(let text): text
        default: nil
        }
    }

    /// A short description for messages and the terminal sheet.
    public var label: String {
        switch self {
        case .file(let path): path
        case .url(let url): url
        case .text(let text): "text “\(text.count > 40 ? String(text.prefix(39)) + "…" : text)”"
        case .data(_, let type, let name): "\(name) (\(type))"
        case .source(let source): source.placeholder.label
        }
    }
}

/// An item that gives its data only for the activity chosen, as `UIActivityItemSource`: a
/// placeholder first (its kind and type decide which activities are offered), then the item.
public protocol ShareItemSource: Sendable {
    /// Stands for the item while activities are listed: a `.url`, `.text`, `.file` or `.data`
    /// of the type the real item will have (the bytes of a `.data` placeholder are not read).
    var placeholder: ShareItem { get }
    /// The item for `activity`, once chosen. A thrown error ends the share with nothing shared.
    func item(for activity: ShareActivity) async throws -> ShareItem
}
