public import CourierManifest
import CourierTypes

/// Which activities fit a set of items: the broker's share sheet, from its one registry. Pure: the
/// adapter identifies the files and says what the caller's session offers; tests drive it directly.
///
/// The rules (docs/share.md): an activity is offered only when it accepts *every* item.
/// - "Open in <app>" for each app that accepts each item as a drop would (a file, text or data
///   item of a type conforming to one of its document types) or claims a URL item's scheme, and
///   whose caller rules admit the caller at each door the items would use;
/// - each `CourierShareActivities` entry whose types accept every item (a URL item also needs
///   its scheme claimed by the app, since it arrives as an open), under the same caller rules;
/// - "Copy" when the session has a clipboard tool and every item is text or a URL;
/// - "Save to…" when no item is a URL; "Send to a nearby device" when the session can run
///   `courier nearby` and every item is a file or data, or the one item is a URL or a text (a
///   LocalSend text message); "Share via link" when it can and every item is a file or data.
/// Excluded kinds or ids are left out. Apps come in name order, then the generic activities.
public struct ShareActivityPlanner: Sendable {
    /// What the caller's session offers besides the apps (the `clipboard` and `nearby` options).
    public struct Session: Sendable, Hashable {
        public var hasClipboard: Bool
        public var hasNearby: Bool
        public init(hasClipboard: Bool = false, hasNearby: Bool = false) {
            self.hasClipboard = hasClipboard
            self.hasNearby = hasNearby
        }
    }

    public let registry: Registry
    /// Whether the caller may reach `app` at `door` (its `CourierAllowed*Callers`).
    public var admits: @Sendable (Manifest, CallerPolicy.Door) -> Bool

    public init(registry: Registry, admits: @escaping @Sendable (Manifest, CallerPolicy.Door) -> Bool = { _, _ in true }) {
        self.registry = registry
        self.admits = admits
    }

    public func activities(for items: [ShareItem], session: Session, excluding excluded: Set<String> = []) -> [ShareActivity] {
        guard !items.isEmpty else { return [] }
        func wanted(_ kind: ShareActivity.Kind) -> Bool { !excluded.contains(kind.rawValue) }
        let types = registry.types
        // Each item's type and its supertypes, once: the per-app test is then a set lookup.
        let conformances: [Set<String>] = items.map { Set(types.supertypes(of: $0.typeIdentifier).map(\.identifier)) }
        let urlSchemes = Set(items.compactMap(\.scheme))
        let hasFiles = items.contains { $0.kind != .url }
        var out: [ShareActivity] = []
        for app in registry.sortedApplications {
            let bundleID = app.bundleIdentifier.rawValue
            if !urlSchemes.isEmpty {
                let schemes = app.schemes
                guard urlSchemes.allSatisfy(schemes.contains) else { continue }
            }
            var offered: [ShareActivity] = []
            if wanted(.openIn) {
                let documentTypes = app.documentTypes.flatMap(\.contentTypes).map(types.canonical)
                let accepts = zip(items, conformances).allSatisfy { item, supertypes in
                    item.kind == .url || documentTypes.contains(where: supertypes.contains)
                }
                if accepts { offered.append(ShareActivity(kind: .openIn, title: "Open in \(app.name)", bundleID: bundleID)) }
            }
            if wanted(.app) {
                for activity in app.shareActivities {
                    let accepted = activity.contentTypes.map(types.canonical)
                    if conformances.allSatisfy({ supertypes in accepted.contains(where: supertypes.contains) }) {
                        offered.append(ShareActivity(kind: .app, title: activity.title, bundleID: bundleID, activityName: activity.name))
                    }
                }
            }
            // The caller rules last: only for an app that would be offered (they cost the most).
            guard !offered.isEmpty else { continue }
            guard urlSchemes.allSatisfy({ admits(app, .url(scheme: $0)) }), !hasFiles || admits(app, .drop) else { continue }
            out += offered
        }
        out.removeAll { excluded.contains($0.id) }
        if wanted(.copy), session.hasClipboard, items.allSatisfy({ $0.kind == .text || $0.kind == .url }) {
            out.append(ShareActivity(kind: .copy, title: "Copy"))
        }
        if wanted(.saveTo), urlSchemes.isEmpty {
            out.append(ShareActivity(kind: .saveTo, title: "Save to…"))
        }
        // Files and data go as files; one text or URL as a LocalSend text message.
        let message = items.count == 1 && (items[0].kind == .text || items[0].kind == .url)
        if wanted(.nearby), session.hasNearby, message || items.allSatisfy({ $0.kind == .file || $0.kind == .data }) {
            out.append(ShareActivity(kind: .nearby, title: "Send to a nearby device"))
        }
        if wanted(.link), session.hasNearby, items.allSatisfy({ $0.kind == .file || $0.kind == .data }) {
            out.append(ShareActivity(kind: .link, title: "Share via link"))
        }
        return out
    }
}
