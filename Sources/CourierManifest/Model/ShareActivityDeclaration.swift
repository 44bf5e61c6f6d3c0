/// One entry of `CourierShareActivities`: an activity the app offers in other apps' share sheets,
/// as an iOS share extension does. Choosing it delivers the shared items to this app — files as a
/// drop into its Inbox, URLs of schemes it claims as an open — with the activity's `name` in the
/// request's options (`share-activity`), so the app knows which of its activities was chosen.
public struct ShareActivityDeclaration: Sendable, Hashable {
    /// `CourierActivityName`: the app's own identifier of the activity (letters, digits, `.`,
    /// `-`, `_`), unique in its manifest; the app sees it as the `share-activity` option.
    public var name: String
    /// `CourierActivityTitle`: what the sheet shows, e.g. "Add to Todo List".
    public var title: String
    /// `CourierActivityContentTypes`: the types it accepts (type identifiers); an item is offered
    /// the activity when its type conforms to one of them (`public.url` for a URL,
    /// `public.plain-text` for text).
    public var contentTypes: [String]

    public init(name: String, title: String, contentTypes: [String]) {
        self.name = name
        self.title = title
        self.contentTypes = contentTypes
    }

    /// Whether `name` is usable as an activity name.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)) }
    }
}
