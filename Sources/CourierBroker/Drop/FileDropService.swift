public import CourierInbox
public import CourierManifest
public import CourierNames
public import CourierTypes
#if canImport(Glibc)
import Glibc
#endif

/// `DropFiles` and `OpenFiles`, in the broker core: files placed in apps' Inboxes, then opened by them.
///
/// 1. Each file's target is the app named by the caller, or — for an empty bundle id — the default
///    app for that file's own type (by the name it will have and its content, through the
///    registry): a drop may span several apps. With no app for some file, nothing is written and
///    the refusal names every such file.
/// 2. `Inbox.drop` checks every descriptor, the limits, free space and the type policy
///    (`DeclaredDocumentTypesPolicy`: each file must conform to a document type its app declares)
///    before anything is written, then places the files atomically; one app's files at a time, and
///    when a later app's part fails, the parts already placed are withdrawn (all or nothing).
/// 3. Each file's `file://` URL is submitted to the dispatcher, in order and all at once, as a file
///    the broker dropped (`BrokerFacts.droppedFile`: the app sees `inbox=true`): each app's files form one batch in its queue (one launch serves them all,
///    and the app sees them in the order given), and the caller's identity travels as for `OpenURL`.
///    The answers are awaited unless the request says not to (`courier open FILE` without `--wait`).
///
/// The D-Bus adapter decodes the message (`ah files`, `as names`, `a{sv} options`), derives
/// `sourceApplication` from the caller's credentials, and calls `drop` (or `routes`, for a dry run).
public struct FileDropService: Sendable {
    public let inbox: Inbox
    public let dispatcher: Dispatcher
    /// The current registry (it changes as manifests are registered).
    public let registry: @Sendable () async -> Registry

    /// The receiver check for each target app, before any byte is written: nil to go ahead, else
    /// the refusal (the D-Bus adapter refuses an app whose bus name an impostor holds).
    public let receiverCheck: @Sendable (_ bundleID: String) -> CourierError?

    public init(inbox: Inbox, dispatcher: Dispatcher, registry: @escaping @Sendable () async -> Registry,
                receiverCheck: @escaping @Sendable (_ bundleID: String) -> CourierError? = { _ in nil }) {
        self.inbox = inbox
        self.dispatcher = dispatcher
        self.registry = registry
        self.receiverCheck = receiverCheck
    }

    /// One `DropFiles` / `OpenFiles` call, decoded.
    public struct Request: Sendable {
        /// The sender's descriptors and suggested names (borrowed: the adapter closes them afterwards).
        public var files: [DropFile]
        /// The receiving app; empty for the default app of each file's type.
        public var bundleID: String
        /// Derived from the caller's bus credentials, never from its options.
        public var sourceApplication: String
        /// For logs: the caller's unique name.
        public var caller: String
        /// What the caller said, passed to the app with each file (the broker adds the fact that it
        /// dropped the file: the app sees `inbox=true`).
        public var options: CallerOptions
        /// Whether `drop` returns after the apps answered (true), or once the files are durably
        /// placed and handed to the dispatcher (false: the answers go to `whenAnswered`, to be logged).
        public var waitsForAnswers: Bool
        /// Without `waitsForAnswers`: called once every app has answered, with the answers in the
        /// drop's order (the D-Bus adapter logs them, and keeps the caller's flood-limit slot until
        /// then, as for an `OpenURL` nobody waits for).
        public var whenAnswered: (@Sendable ([Answer]) -> Void)?

        public init(files: [DropFile], bundleID: String = "", sourceApplication: String = "", caller: String = "",
                    options: CallerOptions = .init(), waitsForAnswers: Bool = true) {
            self.files = files
            self.bundleID = bundleID
            self.sourceApplication = sourceApplication
            self.caller = caller
            self.options = options
            self.waitsForAnswers = waitsForAnswers
        }
    }

    /// An app's answer to its open of one dropped file.
    public struct Answer: Sendable {
        public var file: DeliveredFile
        public var bundleID: String
        public var result: Result<OpenOutcome, CourierError>

        /// For the log: what the app did with the file, in words.
        public var summary: String {
            switch result {
            case .success(let outcome) where outcome.handled: "\(bundleID) opened \(file.path)"
            case .success: "\(bundleID) declined to open \(file.path); the file stays in its Inbox"
            case .failure(let error): "\(bundleID) did not open \(file.path): \(error.code.rawValue): \(error.message); the file stays in its Inbox"
            }
        }
    }

    /// Where one file of a request goes, and why.
    public struct Route: Sendable {
        /// Its position in the request, from 0.
        public var index: Int
        /// The name it will be offered under (sanitized, before numbering in the Inbox).
        public var name: String
        /// What the file is (by name and content).
        public var identification: FileTypeIdentification
        /// The app: the one named, else the default app for the type; empty when there is none.
        public var bundleID: String
        /// Whether `bundleID` declares a document type the file conforms to.
        public var accepted: Bool
    }

    /// A drop placed (and, when awaited, handled).
    public struct Outcome: Sendable {
        /// Where each file went, in the order given.
        public var routes: [Route]
        /// The files as placed, in the order given (`index` is the position in the request).
        public var delivered: [DeliveredFile]
        /// Whether the drop launched an app (false when the answers were not awaited).
        public var launched: Bool

        /// The receiving apps, in order of first appearance.
        public var bundleIDs: [String] {
            routes.reduce(into: [String]()) { if !$0.contains($1.bundleID) { $0.append($1.bundleID) } }
        }
        /// The `file://` URLs of the files in the Inboxes, in the order given.
        public var inboxURLs: [String] { delivered.map(\.url.absoluteString) }
    }

    /// Where each file would go, without writing anything (a dry run, and step 1 of `drop`).
    /// - Throws: `NoHandler` when a named app is not registered, `InvalidArguments` for no files.
    public func routes(for request: Request, in registry: Registry) throws(CourierError) -> [Route] {
        guard !request.files.isEmpty else {
            throw CourierError(.invalidArguments, "the drop has no files; pass at least one open file")
        }
        if !request.bundleID.isEmpty, registry.application(bundleIdentifier: request.bundleID) == nil {
            throw CourierError(.noHandler, "no app \(request.bundleID) is registered; register its manifest (courier register) or drop on another app")
        }
        return request.files.enumerated().map { index, file in
            let name = InboxFileName(suggested: file.suggestedName).name
            let identification = registry.fileTypes.identify(suggestedName: name, fileDescriptor: file.descriptor)
            if !request.bundleID.isEmpty {
                let accepted = registry.documentType(of: request.bundleID, accepting: identification.typeIdentifier) != nil
                return Route(index: index, name: name, identification: identification, bundleID: request.bundleID, accepted: accepted)
            }
            let chosen = registry.handlers(forType: identification.typeIdentifier).chosen?.bundleIdentifier ?? ""
            return Route(index: index, name: name, identification: identification, bundleID: chosen, accepted: !chosen.isEmpty)
        }
    }

    /// Refuses the drop when an app it would reach does not admit the caller
    /// (`CourierAllowedDropCallers`): before any byte is written, and for a dry run too.
    public func checkCallers(_ request: Request, routes: [Route], in registry: Registry) throws(CourierError) {
        let caller = CallerPolicy.Caller(sourceApplication: request.sourceApplication, uniqueName: request.caller)
        for bundleID in Set(routes.map(\.bundleID)).sorted() where !bundleID.isEmpty {
            guard let app = registry.application(bundleIdentifier: bundleID) else { continue }
            if let refusal = CallerPolicy(app).refusal(of: caller, at: .drop, app: bundleID) { throw refusal }
        }
    }

    /// Places the files and has the apps open them.
    /// - Throws: `CourierError`: `NoHandler` (no app for some file's type — every such file is
    ///   named —, or an unknown app), `NotPermitted` when an app's `CourierAllowedDropCallers`
    ///   refuses the caller (nothing written, nothing launched), the Inbox's refusals (`NotPermitted`, `InvalidFile`,
    ///   `LimitsExceeded`, `NoSpace`, …, nothing written), or the delivery's (`LaunchFailed`,
    ///   `Declined` when an app answered NO for a file, …; the files stay in the Inbox, and the
    ///   message says where).
    public func drop(_ request: Request,
                     progress: @escaping @Sendable (DropProgress) -> Void = { _ in }) async throws(CourierError) -> Outcome {
        let registry = await registry()
        let routes = try routes(for: request, in: registry)
        let homeless = routes.filter { $0.bundleID.isEmpty }
        if !homeless.isEmpty {
            let list = homeless.map { "\($0.name.debugDescription) (file \($0.index + 1), \($0.identification))" }.joined(separator: "; ")
            throw CourierError(.noHandler, "no app declares a document type for \(list); nothing was sent — name the app (courier drop --to BUNDLE_ID, courier open -b BUNDLE_ID), or register one that declares the type")
        }
        try checkCallers(request, routes: routes, in: registry)
        for bundleID in Set(routes.map(\.bundleID)).sorted() {
            if let refusal = receiverCheck(bundleID) { throw refusal }
        }
        let delivered = try await place(request.files, along: routes, registry: registry, shareActivity: request.options.shareActivity, progress: progress)

        // One batch per app: submitted back to back, so they queue together and in order.
        let (answers, answer) = OpenAnswers.makeStream()
        for (file, route) in zip(delivered, routes) {
            let open = OpenRequest(url: file.url.absoluteString, bundleID: route.bundleID, caller: request.caller, options: request.options,
                                   facts: BrokerFacts(sourceApplication: request.sourceApplication, droppedFile: true))
            let index = file.index
            dispatcher.submit(open) { answer.yield((index, $0)) }
        }
        guard request.waitsForAnswers else {
            let whenAnswered = request.whenAnswered
            Task {
                let results = await Self.collect(answers, count: delivered.count, then: answer)
                whenAnswered?(zip(delivered, zip(routes, results)).map { file, routed in
                    Answer(file: file, bundleID: routed.0.bundleID,
                           result: routed.1 ?? .failure(CourierError(.appFailed, "no answer came for \(file.name)")))
                })
            }
            return Outcome(routes: routes, delivered: delivered, launched: false)
        }
        let results = await Self.collect(answers, count: delivered.count, then: answer)

        var launched = false
        for (file, (route, result)) in zip(delivered, zip(routes, results)) {
            let folder = inbox.inboxPath(for: route.bundleID)
            switch result {
            case .success(let outcome):
                launched = launched || outcome.launched
                if !outcome.handled {
                    throw CourierError(.declined, "\(route.bundleID) declined to open \(file.name) (file \(file.index + 1) of \(delivered.count)); the files stay in its Inbox, \(folder)")
                }
            case .failure(let error):
                throw CourierError(error.code, "\(error.message) (the dropped files are in \(route.bundleID)'s Inbox, \(folder), and will be found there when it runs)")
            case nil:
                throw CourierError(.appFailed, "no answer came for \(file.name); the files stay in \(folder)")
            }
        }
        return Outcome(routes: routes, delivered: delivered, launched: launched)
    }

    /// Each file's index in the drop with its app's answer to `OpenURL`.
    private typealias OpenAnswers = AsyncStream<(Int, Result<OpenOutcome, CourierError>)>

    /// The apps' answers in file order, once all `count` came (or the stream ended: nil for a file
    /// without one); then ends the stream through `continuation`.
    private static func collect(_ answers: OpenAnswers, count: Int, then continuation: OpenAnswers.Continuation)
        async -> [Result<OpenOutcome, CourierError>?] {
        var results = [Result<OpenOutcome, CourierError>?](repeating: nil, count: count)
        var received = 0
        for await (index, result) in answers {
            results[index] = result
            received += 1
            if received == count { break }
        }
        continuation.finish()
        return results
    }

    /// Step 2: each app's files into its Inbox, app after app; a failure withdraws what the earlier
    /// apps received, so the drop is placed entirely or not at all. Returns the files in request order.
    private func place(_ files: [DropFile], along routes: [Route], registry: Registry, shareActivity: String?,
                       progress: @escaping @Sendable (DropProgress) -> Void) async throws(CourierError) -> [DeliveredFile] {
        var groups: [(bundleID: String, indices: [Int])] = []
        for route in routes {
            if let at = groups.firstIndex(where: { $0.bundleID == route.bundleID }) {
                groups[at].indices.append(route.index)
            } else {
                groups.append((route.bundleID, [route.index]))
            }
        }
        let sizes = groups.count > 1 ? files.map { Self.size(of: $0.descriptor) } : []
        let totalBytes = sizes.reduce(0, +)
        var delivered = [DeliveredFile?](repeating: nil, count: files.count)
        var placed: [(bundleID: String, files: [DeliveredFile])] = []
        var bytesBefore: Int64 = 0
        for group in groups {
            let policy = DeclaredDocumentTypesPolicy(registry: registry, bundleIdentifier: group.bundleID, shareActivity: shareActivity)
            let offset = bytesBefore
            let fileCount = files.count
            let indices = group.indices
            let shifted: @Sendable (DropProgress) -> Void = { part in
                let index: Int = indices[part.fileIndex]
                let copied: Int64 = offset + part.bytesCopied
                progress(DropProgress(fileIndex: index, fileCount: fileCount, fileBytesCopied: part.fileBytesCopied,
                                      fileBytes: part.fileBytes, bytesCopied: copied, totalBytes: totalBytes))
            }
            let report = groups.count == 1 ? progress : shifted
            do {
                let part = try await inbox.drop(group.indices.map { files[$0] }, to: group.bundleID, typePolicy: policy, progress: report)
                placed.append((group.bundleID, part))
                for file in part {
                    let index = group.indices[file.index]
                    delivered[index] = DeliveredFile(index: index, name: file.name, path: file.path, size: file.size)
                }
            } catch {
                for (bundleID, part) in placed { inbox.withdraw(part, from: bundleID) }
                var refusal = Self.brokerError(error)
                if groups.count > 1 {
                    refusal.message += " (the drop was for \(groups.count) apps; nothing was delivered to any of them)"
                }
                throw refusal
            }
            bytesBefore += group.indices.reduce(0) { $0 + (sizes.isEmpty ? 0 : sizes[$1]) }
        }
        return delivered.compactMap { $0 }
    }

    /// The size of an open file, for the progress of a drop that spans several apps (0 when unknown).
    private static func size(of descriptor: Int32) -> Int64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// The Inbox's refusal as the broker answers it (`org.courier.Error.<Code>`, the shared table).
    static func brokerError(_ error: InboxError) -> CourierError {
        CourierError(error.courierErrorCode, error.message)
    }
}
