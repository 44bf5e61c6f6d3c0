import CourierNames

extension ManifestParser {
    /// The key of the activities an app offers in share sheets (docs/share.md).
    public static let shareActivitiesKey = "CourierShareActivities"
    static let activityNameKey = "CourierActivityName"
    static let activityTitleKey = "CourierActivityTitle"
    static let activityContentTypesKey = "CourierActivityContentTypes"

    /// `CourierShareActivities`: an array of dictionaries. A bad entry is dropped with a warning
    /// naming its key path; the rest of the manifest is kept.
    func parseShareActivities(_ value: PropertyListValue?, _ context: inout Context) -> [ShareActivityDeclaration] {
        let key = Self.shareActivitiesKey
        guard let entries = context.array(value, key: key) else { return [] }
        var out: [ShareActivityDeclaration] = []
        for (i, entry) in entries.enumerated() {
            let path = "\(key)[\(i)]"
            guard let dict = context.dictionary(entry, key: path) else { continue }
            guard let name = context.string(dict[Self.activityNameKey], key: "\(path).\(Self.activityNameKey)"),
                  ShareActivityDeclaration.isValidName(name) else {
                context.warning(.invalidValue, "\(path).\(Self.activityNameKey)", "a share activity needs \(Self.activityNameKey): letters, digits, '.', '-' or '_' (e.g. add-task) — the activity is ignored")
                continue
            }
            guard !out.contains(where: { $0.name == name }) else {
                context.warning(.invalidValue, "\(path).\(Self.activityNameKey)", "the share activity '\(name)' is declared twice; the first is kept — this one is ignored")
                continue
            }
            let title = context.string(dict[Self.activityTitleKey], key: "\(path).\(Self.activityTitleKey)") ?? ""
            guard !title.isEmpty, title.count <= 200, CleanText.isClean(title) else {
                // The title is shown on terminals and in notifications: control and bidi characters
                // could rewrite what the person reads.
                context.warning(.invalidValue, "\(path).\(Self.activityTitleKey)", "the share activity '\(name)' needs a \(Self.activityTitleKey) of at most 200 characters without control or bidi formatting characters (\(CleanText.escaped(title.prefix(60)))) — the activity is ignored")
                continue
            }
            var types: [String] = []
            if let value = dict[Self.activityContentTypesKey] {
                for (j, type) in context.stringOrStringArray(value, key: "\(path).\(Self.activityContentTypesKey)") {
                    if let type = checkedTypeIdentifier(type, key: "\(path).\(Self.activityContentTypesKey)[\(j)]", &context), !types.contains(type) {
                        types.append(type)
                    }
                }
            }
            guard !types.isEmpty else {
                context.warning(.invalidValue, "\(path).\(Self.activityContentTypesKey)", "the share activity '\(name)' accepts no type; list the types it takes (e.g. public.plain-text, public.url) — the activity is ignored")
                continue
            }
            out.append(ShareActivityDeclaration(name: name, title: title, contentTypes: types))
        }
        return out
    }
}
