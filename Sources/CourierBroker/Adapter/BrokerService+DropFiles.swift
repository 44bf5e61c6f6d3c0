import CourierInbox
import CourierManifest
import CourierNames
import DBus
import CourierProtocol
import Foundation
import Synchronization

/// `DropFiles`: the D-Bus side. The message is decoded here; the work is `FileDropService`'s.
///
/// The sender's descriptors arrive as `ah` (duplicates libdbus made for this process): they are
/// read, never reopened by path (no confused deputy), and closed when the call ends, whatever
/// happens. The app is told who sent the files exactly as for `OpenURL` (from the bus's
/// credentials). A caller that passes the option `progress-token` (s) receives unicast
/// `DropProgress (s token, t copied, t total)` signals while the files are copied, at most ten a
/// second, plus one at the end.
extension BrokerService {
    /// The signal declared on `org.courier.Broker1` for drop progress.

    /// Removes what drops killed mid-copy left behind; called once at start-up.
    func sweepInboxes() {
        let report = inbox.sweepLeftovers()
        for path in report.removed { logger.info("removed the leftover of an interrupted drop: \(path)") }
        for problem in report.problems { logger.warning("inbox sweep: \(problem)") }
    }

    /// `DropFiles (s bundle_id, ah files, as names, a{sv} options) → (as inbox_urls)`. With the
    /// option `wait` false it answers once the files are durably in the Inboxes (`fsync`ed, linked,
    /// the folder `fsync`ed) and handed to the apps, and logs the apps' answers when they come:
    /// what the nearby receiver uses, whose sender must not wait on the app.
    func dropFilesMethod() -> DBusMethod {
        Broker1.dropFiles.serving { [self] call in
            try await withDropRequest(call, method: Broker1.dropFiles.name.rawValue) { service, request, options in
                let outcome = try await drop(service, request, options: options, call: call)
                return [.strings(outcome.inboxURLs)]
            }
        }
    }

    /// `StageFiles (ah files, as names) → (s batch)`: files handed over ahead of a drop with more
    /// files than one message may carry (`StagedFiles`); the drop names the batch in its option
    /// `staged`. Nothing is read, routed or delivered until then.
    func stageFilesMethod() -> DBusMethod {
        Broker1.stageFiles.serving { [self] call in
            let descriptors = (try? call.arguments.decode([UnixFD].self, at: 0)) ?? []
            var owned: [Int32] = []
            defer { descriptors.forEach { $0.close() } }
            do throws(CourierError) {
                let names: [String]
                do { names = try call.arguments.decode([String].self, at: 1) } catch { throw CourierError(.invalidArguments, "\(Broker1.stageFiles.name.rawValue): \(error)") }
                guard names.count == descriptors.count, !descriptors.isEmpty else {
                    throw CourierError(.invalidArguments, "\(Broker1.stageFiles.name.rawValue) got \(descriptors.count) files but \(names.count) names; pass at least one file and one suggested name per file")
                }
                owned = descriptors.compactMap { $0.take() }
                let sender = call.sender?.rawValue ?? ""
                let token = try stagedFiles.withLock { staged throws(CourierError) in try staged.stage(owned, names: names, owner: sender) }
                return [.string(token)]
            } catch {
                throw error.dbusError
            }
        }
    }

    /// `OpenFiles (s bundle_id, ah files, as names, a{sv} options) → (aa{sv} files)`: `DropFiles`
    /// that says where each file went — what `courier open FILE` and `courier drop` without `--to`
    /// use. One dictionary per file, in order: `name`, `type`, `type-reason`, `bundle-id` (empty
    /// when no app accepts it), `accepted`, and `inbox-url` once placed. Options besides
    /// `DropFiles`'s: `dry-run` (b: route and check only, write nothing; files no app accepts are
    /// listed, not refused).
    func openFilesMethod() -> DBusMethod {
        Broker1.openFiles.serving { [self] call in
            try await withDropRequest(call, method: Broker1.openFiles.name.rawValue) { service, request, options in
                if options.dryRun {
                    let routes: [FileDropService.Route]
                    do {
                        let registry = await service.registry()
                        routes = try service.routes(for: request, in: registry)
                        try service.checkCallers(request, routes: routes, in: registry)
                    } catch {
                        throw Self.dbusError(error)
                    }
                    return [Self.fileRows(routes, delivered: [])]
                }
                let outcome = try await drop(service, request, options: options, call: call)
                return [Self.fileRows(outcome.routes, delivered: outcome.delivered)]
            }
        }
    }

    /// Decodes what `DropFiles` and `OpenFiles` share, under one of the caller's flood-limit slots,
    /// and closes the received descriptors afterwards whatever happens. The slot is given back when
    /// the call is answered. A drop that does not wait (`wait=false`) also holds one of the caller's
    /// slots for unanswered drops (`SenderQuota.unansweredDropsPerCall`) until its apps have answered,
    /// so that drops nobody waits for cannot pile up without bound, while an app slow to answer
    /// does not hold up the caller's next calls.
    private func withDropRequest(
        _ call: MethodCall, method: String,
        _ body: (FileDropService, FileDropService.Request, RequestOptions) async throws -> [DBusValue]
    ) async throws -> [DBusValue] {
        let received = (try? call.arguments.decode([UnixFD].self, at: 1)) ?? []
        var descriptors = received
        defer { descriptors.forEach { $0.close() } }
        let ticket: SenderQuota.Ticket
        do throws(CourierError) { ticket = try takeSenderSlot(call, method: method) } catch { throw error.dbusError }
        defer { giveBack(ticket) }
        let bundleID: String
        var names: [String]
        let options: RequestOptions
        do {
            bundleID = try call.arguments.decode(String.self, at: 0)
            names = try call.arguments.decode([String].self, at: 2)
            options = try RequestOptions(call.arguments.decode([String: DBusValue].self, at: 3))
        } catch {
            throw Self.dbusError(error)
        }
        do throws(CourierError) { try checkShareActivity(options.caller.shareActivity, target: bundleID.isEmpty ? nil : bundleID) } catch {
            throw error.dbusError
        }
        guard !received.isEmpty else {
            throw CourierError(.invalidArguments, "\(method) needs at least one file descriptor").dbusError
        }
        guard names.count == received.count else {
            throw CourierError(.invalidArguments, "\(method) got \(received.count) files but \(names.count) names; pass one suggested name per file (an empty name is fine)").dbusError
        }
        if !options.staged.isEmpty {
            // The staged batches come first, in the order named; they are this drop's now.
            let owner = call.sender?.rawValue ?? ""
            do throws(CourierError) {
                let staged = try stagedFiles.withLock { staged throws(CourierError) in try staged.take(options.staged, owner: owner) }
                descriptors = staged.descriptors.map { UnixFD(taking: $0) } + received
                names = staged.names + names
            } catch {
                throw error.dbusError
            }
        }
        let files = zip(descriptors, names).map { DropFile(descriptor: $0.rawValue ?? -1, suggestedName: $1) }
        let sender = call.sender?.rawValue ?? ""
        let source = await sourceApplication(of: sender)
        let service = FileDropService(inbox: inbox, dispatcher: dispatcher, registry: { [catalog] in
            (catalog as? ManifestCatalog)?.registry ?? Registry()
        }, receiverCheck: { [receivers] in receivers.squatter(of: $0) })
        var request = FileDropService.Request(files: files, bundleID: bundleID, sourceApplication: source, caller: sender,
                                              options: options.caller)
        request.waitsForAnswers = options.wait != false
        var handedOver = false
        var releaseUnanswered: (@Sendable () -> Void)?
        defer { if !handedOver { releaseUnanswered?() } }
        if !request.waitsForAnswers {
            let unanswered: SenderQuota.Ticket
            do throws(CourierError) { unanswered = try takeSenderSlot(call, method: method, unanswered: true) } catch {
                let limit = unansweredDrops.withLock { $0.limit }
                throw CourierError(.limitsExceeded, "\(method) refused: \(sender) already has \(limit) drops without wait whose apps have not answered (\(SenderQuota.unansweredDropsPerCall) per request of courierd --max-requests-per-sender); wait for the apps to answer before dropping more").dbusError
            }
            let given = Mutex(false)
            let giveBackOnce: @Sendable () -> Void = { [self] in
                if given.withLock({ done in defer { done = true }; return !done }) { giveBack(unanswered, unanswered: true) }
            }
            releaseUnanswered = giveBackOnce
            let logger = logger, caller = request.caller
            request.whenAnswered = { answers in
                for answer in answers {
                    let line = "\(answer.summary) (dropped by \(caller), who did not wait for the answer)"
                    if case .success(let outcome) = answer.result, outcome.handled { logger.info("\(line)") } else { logger.warning("\(line)") }
                }
                giveBackOnce()
            }
        }
        let reply = try await body(service, request, options)
        // Not waiting, the files were handed to the apps: the unanswered slot goes back with their answers.
        if !request.waitsForAnswers, !options.dryRun { handedOver = true }
        return reply
    }

    /// Runs the drop, logging what happened; a refusal becomes its D-Bus error.
    private func drop(_ service: FileDropService, _ request: FileDropService.Request, options: RequestOptions,
                      call: MethodCall) async throws -> FileDropService.Outcome {
        let source = request.sourceApplication.isEmpty ? "unknown app" : request.sourceApplication
        do {
            let outcome = try await service.drop(request, progress: progressReporter(token: options.progressToken, to: call.sender))
            logger.info("dropped \(outcome.inboxURLs.count) file(s) from \(request.caller) (\(source)) on \(outcome.bundleIDs.joined(separator: ", "))")
            return outcome
        } catch {
            logger.info("drop from \(request.caller) on \(request.bundleID.isEmpty ? "(default apps)" : request.bundleID) refused: \(error)")
            throw Self.dbusError(error)
        }
    }

    /// `OpenFiles`' reply: one `a{sv}` per file, in order.
    private static func fileRows(_ routes: [FileDropService.Route], delivered: [DeliveredFile]) -> DBusValue {
        let rows: [DBusValue] = routes.map { route in
            var row: [String: DBusValue] = [String: DBusValue](
                CourierKey.name(route.name), CourierKey.type(route.identification.typeIdentifier),
                CourierKey.typeReason(route.identification.reason), CourierKey.bundleID(route.bundleID),
                CourierKey.accepted(route.accepted)
            )
            if route.index < delivered.count { row[CourierKey.inboxURL] = delivered[route.index].url.absoluteString }
            return .vardict(row)
        }
        return .array(.dictionary(key: .string, value: .variant), rows)
    }

    /// Emits `DropProgress` to `destination` when it asked for it, at most every 100 ms (and at the end).
    private func progressReporter(token: String?, to destination: BusName?) -> @Sendable (DropProgress) -> Void {
        guard let token, !token.isEmpty, let destination else { return { _ in } }
        let connection = connection
        let last = Mutex<ContinuousClock.Instant?>(nil)
        return { progress in
            let now = ContinuousClock.now
            let due = last.withLock { previous in
                if progress.bytesCopied < progress.totalBytes, let previous, now - previous < .milliseconds(100) { return false }
                previous = now
                return true
            }
            guard due else { return }
            try? Broker1.dropProgress.emit(on: connection, path: Broker1.objectPath,
                                       [.string(token), .uint64(UInt64(progress.bytesCopied)), .uint64(UInt64(progress.totalBytes))],
                                       destination: destination)
        }
    }
}
