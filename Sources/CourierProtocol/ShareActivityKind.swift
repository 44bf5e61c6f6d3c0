/// The kinds of the share sheet's activities (`kind` in the details of `Broker1.shareActivities`'
/// rows), which a caller can also exclude (`CourierKey.exclude`, `courier share --exclude`).
public enum ShareActivityKind: String, Sendable, Hashable, CaseIterable {
    /// "Open in <app>": an app whose document types (or schemes, for URLs) accept every item.
    case openIn = "open-in"
    /// An activity an app declares in `CourierShareActivities`.
    case app
    /// "Copy": text and URLs to the clipboard, where the caller's session has a clipboard tool.
    case copy
    /// "Save to…": the items as files in a folder.
    case saveTo = "save-to"
    /// "Send to a nearby device": `courier nearby send` (LocalSend); files only.
    case nearby
    /// "Share via link": `courier nearby serve` (the download API and a page for a browser); files only.
    case link
}
