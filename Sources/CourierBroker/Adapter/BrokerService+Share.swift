import CourierManifest
import CourierNames
import CourierProtocol
import DBus
import Foundation

/// `ShareActivities`: the share sheet's list, from the broker's registry (docs/share.md). The
/// broker only lists; the caller performs the chosen activity with the ordinary calls (`DropFiles`,
/// `OpenURL`, with `share-activity` for an app's own activity), so each keeps its own checks.
extension BrokerService {
    /// At most this many items per call: a share sheet is a person's choice, not a bulk transfer.
    static let maximumShareItems = 1024

    /// `ShareActivities (a(sss) items, ah files, a{sv} options) → (a(ssa{sv}) activities)`.
    ///
    /// Each item is `(kind, name, type)`: `file` (the next descriptor of `files`; `name` the
    /// suggested file name; its type is identified from name and content, as for a drop), `url`
    /// (`name` is the URL), `text` (name and type unused: the words stay with the caller), `data`
    /// (`name` a suggested file name, `type` its type identifier). Options: `exclude` (as: activity
    /// kinds or ids), `clipboard` (b: the caller's session has a clipboard tool), `nearby` (b: it
    /// can run `courier nearby`). Each activity is `(id, title, {kind, bundle-id, activity})`; an
    /// empty list when nothing fits (the client names that refusal: it knows what it asked).
    func shareActivitiesMethod() -> DBusMethod {
        Broker1.shareActivities.serving { [self] call in
            let descriptors = (try? call.arguments.decode([UnixFD].self, at: 1)) ?? []
            defer { descriptors.forEach { $0.close() } }
            return try await withSenderSlot(call, method: Broker1.shareActivities.name.rawValue) {
                do {
                    let registry = (catalog as? ManifestCatalog)?.registry ?? Registry()
                    let items = try Self.shareItems(call.arguments.first?.arrayValue ?? [], files: descriptors, registry: registry)
                    let options = try call.arguments.decode([String: DBusValue].self, at: 2)
                    let excluded = Set(try options.decode(CourierKey.exclude) ?? [])
                    let session = ShareActivityPlanner.Session(hasClipboard: try options.decode(CourierKey.clipboard) ?? false,
                                                               hasNearby: try options.decode(CourierKey.nearby) ?? false)
                    let sender = call.sender?.rawValue ?? ""
                    let pid = await callerPID(sender)
                    let caller = CallerPolicy.Caller(sourceApplication: dispatcher.sourceApplication(uniqueName: sender, pid: pid), uniqueName: sender, pid: pid)
                    let planner = ShareActivityPlanner(registry: registry) { app, door in
                        CallerPolicy(app).refusal(of: caller, at: door, app: app.bundleIdentifier.rawValue) == nil
                    }
                    let activities = planner.activities(for: items, session: session, excluding: excluded)
                    return [Self.activityRows(activities)]
                } catch {
                    throw Self.dbusError(error)
                }
            }
        }
    }

    /// The items of a `ShareActivities` call, typed; `InvalidArguments` names a bad one.
    static func shareItems(_ values: [DBusValue], files: [UnixFD], registry: Registry) throws(CourierError) -> [ShareItem] {
        guard !values.isEmpty else { throw CourierError(.invalidArguments, "\(Broker1.shareActivities.name.rawValue) needs at least one item") }
        guard values.count <= maximumShareItems else {
            throw CourierError(.limitsExceeded, "\(Broker1.shareActivities.name.rawValue) got \(values.count) items; at most \(maximumShareItems) can be shared at once")
        }
        var items: [ShareItem] = []
        var nextFile = 0
        for (index, value) in values.enumerated() {
            guard case .structure(let fields) = value, fields.count == 3, let kindName = fields[0].stringValue,
                  let name = fields[1].stringValue, let type = fields[2].stringValue else {
                throw CourierError(.invalidArguments, "item \(index) is not (kind, name, type)")
            }
            guard let kind = ShareItem.Kind(rawValue: kindName) else {
                throw CourierError(.invalidArguments, "item \(index) has the kind '\(CleanText.escaped(kindName.prefix(40)))'; use one of \(ShareItem.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            switch kind {
            case .file:
                guard nextFile < files.count, let fd = files[nextFile].rawValue else {
                    throw CourierError(.invalidArguments, "item \(index) is a file but the call has only \(files.count) descriptor(s); pass one per file item, in order")
                }
                nextFile += 1
                let identification = registry.fileTypes.identify(suggestedName: name, fileDescriptor: fd)
                items.append(ShareItem(kind: .file, typeIdentifier: identification.typeIdentifier))
            case .url:
                guard let scheme = Registry.scheme(fromURLOrScheme: name), name.contains(":") else {
                    throw CourierError(.invalidURL, "item \(index) ('\(CleanText.escaped(name.prefix(80)))') is not a URL with a scheme")
                }
                items.append(ShareItem(kind: .url, typeIdentifier: ShareItem.urlType, scheme: scheme))
            case .text:
                items.append(ShareItem(kind: .text, typeIdentifier: ShareItem.textType))
            case .data:
                guard Identifiers.isValidTypeIdentifier(type) else {
                    throw CourierError(.invalidArguments, "item \(index) is data of type '\(CleanText.escaped(type.prefix(80)))', which is not a type identifier (e.g. public.png)")
                }
                items.append(ShareItem(kind: .data, typeIdentifier: registry.types.canonical(type)))
            }
        }
        guard nextFile == files.count else {
            throw CourierError(.invalidArguments, "\(Broker1.shareActivities.name.rawValue) got \(files.count) descriptors for \(nextFile) file item(s); pass one per file item")
        }
        return items
    }

    private static func activityRows(_ activities: [ShareActivity]) -> DBusValue {
        let rows: [DBusValue] = activities.map { activity in
            var details = [String: DBusValue](CourierKey.kind(activity.kind.rawValue))
            if let bundleID = activity.bundleID { details[CourierKey.bundleID] = bundleID }
            if let name = activity.activityName { details[CourierKey.activity] = name }
            return .structure([.string(activity.id), .string(activity.title), .vardict(details)])
        }
        return .array(.structure([.string, .string, .dictionary(key: .string, value: .variant)]), rows)
    }

    /// A request naming `share-activity` must name one its target declares: the option tells the
    /// app which of its own activities the person chose, so it may not be made up.
    func checkShareActivity(_ name: String?, target: String?) throws(CourierError) {
        guard let name else { return }
        let registry = (catalog as? ManifestCatalog)?.registry ?? Registry()
        guard let target, let app = registry.application(bundleIdentifier: target) else {
            throw CourierError(.invalidArguments, "the option share-activity needs bundle-id (or the drop's app): an activity belongs to one app")
        }
        guard app.shareActivities.contains(where: { $0.name == name }) else {
            throw CourierError(.notPermitted, "\(target) declares no share activity '\(CleanText.escaped(name.prefix(80)))' (CourierShareActivities in \(app.path)); nothing was delivered")
        }
    }
}
