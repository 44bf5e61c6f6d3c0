public import CourierInbox
public import CourierManifest

/// The broker's type check of a drop: the file's type must conform to a document type the receiving
/// app declares (`CFBundleDocumentTypes` / `LSItemContentTypes`). The broker's policy, given to the
/// Inbox as a `DropTypePolicy`: the Inbox itself knows files, not manifests.
///
/// The type is decided by the registry's type machinery (`Registry.acceptance`) from both the name
/// the file will have in the Inbox and its content (libmagic on the first 64 KiB, read with
/// `pread`): a shell script sent as `notes.txt` is a shell script. The refusal names the type found,
/// why, and what the app accepts.
public struct DeclaredDocumentTypesPolicy: DropTypePolicy {
    /// The registry that knows the app and the type graph (system types plus every app's declarations).
    public let registry: Registry
    /// The app receiving the drop.
    public let bundleIdentifier: String
    /// The app's share activity the drop is for (`share-activity`): its declared types are
    /// accepted too (`CourierShareActivities`, docs/share.md).
    public let shareActivity: String?

    public init(registry: Registry, bundleIdentifier: String, shareActivity: String? = nil) {
        self.registry = registry
        self.bundleIdentifier = bundleIdentifier
        self.shareActivity = shareActivity
    }

    public func check(_ candidate: DropCandidate) throws(InboxError) {
        guard let app = registry.application(bundleIdentifier: bundleIdentifier) else {
            throw InboxError(code: .notPermitted,
                             message: "\(bundleIdentifier) has no registered manifest, so it declares no document types and cannot receive \(candidate.label); register its manifest first.",
                             fileIndex: candidate.index)
        }
        let (identification, documentType) = registry.acceptance(ofFileNamed: candidate.fileName.name,
                                                                 fileDescriptor: candidate.descriptor, by: bundleIdentifier)
        guard documentType == nil else { return }
        let activity = shareActivity.flatMap { name in app.shareActivities.first { $0.name == name } }
        if let activity, activity.contentTypes.contains(where: { registry.types.conforms(identification.typeIdentifier, to: $0) }) { return }
        var accepted: [String] = activity?.contentTypes ?? []
        for type in app.documentTypes.flatMap(\.contentTypes) where !accepted.contains(type) {
            accepted.append(type)
        }
        throw InboxError.notPermitted(candidate, foundType: "\(identification.typeIdentifier) (\(identification.reason))",
                                      bundleIdentifier: bundleIdentifier, accepted: accepted)
    }
}
