public import CourierInbox
public import CourierManifest

/// `DropFiles`, in the broker core: files placed in the app's Inbox, then opened by the app.
///
/// 1. The target is the app named by the caller, or — for an empty bundle id — the default app for
///    the type of the first file (by its name and content, through the registry).
/// 2. `Inbox.drop` checks every descriptor, the limits, free space and the type policy
///    (`DeclaredDocumentTypesPolicy`: each file must conform to a document type the app declares)
///    before anything is written, then places the files atomically.
/// 3. Each file's `file://` URL is submitted to the dispatcher, in order and all at once, with the
///    option `inbox=true`: they form one batch in the app's queue (one launch serves them all, and
///    the app sees them in the order given), and the caller's identity travels as for `OpenURL`.
///
/// The D-Bus adapter decodes the message (`ah files`, `as names`, `a{sv} options`), derives
/// `sourceApplication` from the caller's credentials, and calls `drop`.
public struct FileDropService: Sendable {
    /// The option every delivery of a dropped file carries (`inbox=true`).
    public static let inboxOption = "inbox"

    public let inbox: Inbox
    public let dispatcher: Dispatcher
    /// The current registry (it changes as manifests are registered).
    public let registry: @Sendable () async -> Registry

    public init(inbox: Inbox, dispatcher: Dispatcher, registry: @escaping @Sendable () async -> Registry) {
        self.inbox = inbox
        self.dispatcher = dispatcher
        self.registry = registry
    }

    /// One `DropFiles` call, decoded.
    public struct Request: Sendable {
        /// The sender's descriptors and suggested names (borrowed: the adapter closes them afterwards).
        public var files: [DropFile]
        /// The receiving app; empty for the default app of the files' type.
        public var bundleID: String
        /// Derived from the caller's bus credentials, never from its options.
        public var sourceApplication: String
        /// For logs: the caller's unique name.
        public var caller: String
        /// Passed to the app with each file. `inbox` is added as `true` when absent; an adapter that
        /// needs its own value type (the D-Bus adapter: a `DBusValue`) puts `inbox` in itself.
        public var appOptions: [String: any Sendable]
        public var activationToken: String?

        public init(files: [DropFile], bundleID: String = "", sourceApplication: String = "", caller: String = "",
                    appOptions: [String: any Sendable] = [:], activationToken: String? = nil) {
            self.files = files
            self.bundleID = bundleID
            self.sourceApplication = sourceApplication
            self.caller = caller
            self.appOptions = appOptions
            self.activationToken = activationToken
        }
    }

    /// A drop the app handled.
    public struct Outcome: Sendable {
        /// The app that received the files.
        public var bundleID: String
        /// The `file://` URLs of the files in its Inbox, in the order given.
        public var inboxURLs: [String]
        /// The files as placed.
        public var delivered: [DeliveredFile]
        /// Whether the drop launched the app.
        public var launched: Bool
    }

    /// Places the files and has the app open them.
    /// - Throws: `BrokerError`: `NoHandler` (no app for the type, or an unknown app), the Inbox's
    ///   refusals (`NotPermitted`, `InvalidFile`, `LimitsExceeded`, `NoSpace`, …, nothing written),
    ///   or the delivery's (`LaunchFailed`, `Declined` when the app answered NO for a file, …; the
    ///   files stay in the Inbox, and the message says where).
    public func drop(_ request: Request,
                     progress: @escaping @Sendable (DropProgress) -> Void = { _ in }) async throws(BrokerError) -> Outcome {
        let registry = await registry()
        let bundleID = try target(of: request, in: registry)
        let policy = DeclaredDocumentTypesPolicy(registry: registry, bundleIdentifier: bundleID)

        let delivered: [DeliveredFile]
        do {
            delivered = try await inbox.drop(request.files, to: bundleID, typePolicy: policy, progress: progress)
        } catch {
            throw Self.brokerError(error)
        }

        // One batch: submitted back to back, so they queue together and in order.
        var appOptions = request.appOptions
        if appOptions[Self.inboxOption] == nil { appOptions[Self.inboxOption] = true }
        let (answers, answer) = AsyncStream<(Int, Result<OpenOutcome, BrokerError>)>.makeStream()
        for file in delivered {
            let open = OpenRequest(url: file.url.absoluteString, bundleID: bundleID, sourceApplication: request.sourceApplication,
                                   caller: request.caller, appOptions: appOptions, activationToken: request.activationToken)
            let index = file.index
            dispatcher.submit(open) { answer.yield((index, $0)) }
        }
        var results = [Result<OpenOutcome, BrokerError>?](repeating: nil, count: delivered.count)
        var received = 0
        for await (index, result) in answers {
            results[index] = result
            received += 1
            if received == delivered.count { break }
        }
        answer.finish()

        let folder = inbox.inboxPath(for: bundleID)
        var launched = false
        for (file, result) in zip(delivered, results) {
            switch result {
            case .success(let outcome):
                launched = launched || outcome.launched
                if !outcome.handled {
                    throw BrokerError(.declined, "\(bundleID) declined to open \(file.name) (file \(file.index + 1) of \(delivered.count)); the files stay in its Inbox, \(folder)")
                }
            case .failure(let error):
                throw BrokerError(error.code, "\(error.message) (the dropped files are in \(bundleID)'s Inbox, \(folder), and will be found there when it runs)")
            case nil:
                throw BrokerError(.appFailed, "no answer came for \(file.name); the files stay in \(folder)")
            }
        }
        return Outcome(bundleID: bundleID, inboxURLs: delivered.map(\.url.absoluteString), delivered: delivered, launched: launched)
    }

    /// The receiving app: the one named, which must be registered, or the default for the type of
    /// the first file.
    func target(of request: Request, in registry: Registry) throws(BrokerError) -> String {
        if !request.bundleID.isEmpty {
            guard registry.application(bundleIdentifier: request.bundleID) != nil else {
                throw BrokerError(.noHandler, "no app \(request.bundleID) is registered; register its manifest (courier register) or drop on another app")
            }
            return request.bundleID
        }
        guard let first = request.files.first else {
            throw BrokerError(.invalidArguments, "DropFiles needs at least one file")
        }
        let name = InboxFileName(suggested: first.suggestedName).name
        let type = registry.fileTypes.identify(suggestedName: name, fileDescriptor: first.descriptor)
        guard let chosen = registry.handlers(forType: type.typeIdentifier).chosen else {
            throw BrokerError(.noHandler, "no app declares a document type for \(name.debugDescription), of type \(type.typeIdentifier) (\(type.reason)); name an app with --to, or register one that declares the type")
        }
        return chosen.bundleIdentifier
    }

    /// The Inbox's refusal as the broker answers it (`org.courier.Error.<Code>`, the shared table).
    static func brokerError(_ error: InboxError) -> BrokerError {
        BrokerError(error.courierErrorCode, error.message)
    }
}
