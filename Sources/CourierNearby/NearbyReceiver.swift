public import CourierInbox
import CourierNames
import Foundation
public import Logging
import Synchronization

/// The receiving half of LocalSend v2, without the network: admission (consent), the one session,
/// the checks on every file and upload, and delivery. ``NearbyServer`` feeds it HTTP requests; the
/// tests drive both.
///
/// Order of checks in `prepare-upload`, chosen so that a peer learns as little as possible before
/// it is let in: the body (400), the session slot (409), the PIN budget (403) and back-off (429),
/// consent by trust or PIN (401), the apps that would take the files (403), free space (403), and only then, in the
/// default mode, the user's answer (403 when declined or when nobody can be asked).
public final class NearbyReceiver: Sendable {
    public struct Configuration: Sendable {
        /// This device, as `info` and `register` answer.
        public var device: NearbyDevice
        /// PIN mode: senders that give it (`?pin=`) are let in without asking.
        public var pin: String?
        /// Read at each `prepare-upload`, so that `courier nearby trust` applies at once.
        public var trustList: @Sendable () -> TrustList
        /// Who is asked when the sender is neither trusted nor in PIN mode; nil: nobody, refused.
        public var prompt: (any ConsentPrompt)?
        /// Who is asked about a text message, in every mode and for every sender (trusted and PIN
        /// ones too); nil: nobody can be, and messages are refused.
        public var messagePrompt: (any ConsentPrompt)?
        /// Where an accepted text that is not a URL goes: standard output, one line, escaped.
        public var showText: @Sendable (NearbyTextMessage) -> Void = { FileHandle.standardOutput.write(Data((CleanText.escaped($0.text) + "\n").utf8)) }
        public var stagingFolder: String
        /// The Inboxes (the broker's containers root): each upload is streamed into an unnamed
        /// file in its app's Inbox, which the broker links into place — one write of each byte.
        /// Nil, or a file system without unnamed files: the staging folder, and the broker copies.
        public var inboxes: Inbox?
        /// Files per session, bytes per file and per session (the Inbox's own limits by default).
        public var limits: DropLimits = .standard
        /// A session with no upload running for this long is dropped (the sender went away).
        public var idleSessionTimeout: Duration = .seconds(120)
        /// Wrong PINs the receiver takes in all, from every address together, before it accepts no
        /// PIN until it is restarted. Counted for the receiver as a whole: an attacker on the
        /// network has as many source addresses as it likes (127.0.0.0/8 locally, a /64 on IPv6).
        /// With a generated PIN (``NearbyPIN``) the budget leaves a guess no real chance.
        public var pinBudget = NearbyPIN.budget
        /// After each wrong PIN, no PIN from anyone is checked for this long (429): guesses cannot
        /// come faster than one per back-off, whatever their source.
        public var pinBackoff: Duration = .seconds(1)
        /// Called once, when the last wrong PIN of the budget has been tried, with what to tell the
        /// user (anyone on the network can spend the budget, and lock real senders out with it).
        public var onPINBudgetSpent: (@Sendable (String) -> Void)?

        public init(device: NearbyDevice, pin: String?, trustList: @escaping @Sendable () -> TrustList,
                    prompt: (any ConsentPrompt)?, stagingFolder: String) {
            self.device = device
            self.pin = pin
            self.trustList = trustList
            self.prompt = prompt
            self.stagingFolder = stagingFolder
        }
    }

    /// An upload allowed to start: what `finishUpload` needs to deliver it.
    public struct UploadTicket: Sendable {
        public let sessionID: String
        public let file: NearbyFile
        public let bundleID: String
        public let sender: NearbySender
    }

    private struct State: Sendable {
        var session: ReceiveSession?
        /// A `prepare-upload` is being decided (the user is being asked): the slot is taken.
        var deciding = false
        /// Uploads delivered lately, by session id, file id and token: a sender that retries one
        /// (it missed the answer) hears success, and the file is not stored twice.
        var delivered: [String: (address: String, path: String)] = [:]
        var deliveredOrder: [String] = []
        var toldAboutStaging = false
    }

    public let configuration: Configuration
    private let delivery: any NearbyDelivery
    private let logger: Logger
    private let state = Mutex(State())
    /// PIN mode's check and budget (nil without a PIN).
    private let pinGate: PINGate?

    public init(configuration: Configuration, delivery: any NearbyDelivery, logger: Logger) {
        self.configuration = configuration
        self.delivery = delivery
        self.logger = logger
        let (budget, told) = (configuration.pinBudget, configuration.onPINBudgetSpent)
        pinGate = configuration.pin.map { pin in
            PINGate(pin: pin, budget: budget, backoff: configuration.pinBackoff, holder: "this receiver") { address in
                told?("""
                    \(budget) wrong PINs have been tried (the last from \(address)): this receiver accepts no PIN until \
                    `courier nearby receive` is restarted. Someone on the network may be guessing it. To go on, restart \
                    it with a new PIN (--generate-pin), or let known senders in with `courier nearby trust FINGERPRINT`.
                    """)
            }
        }
    }

    /// `POST prepare-upload`: decides, and on acceptance opens the session; nil (204, "no file
    /// transfer needed") when the request lists no files.
    /// `verifiedFingerprint` is the client certificate's, when the peer sent one (mutual TLS).
    public func prepareUpload(body: [UInt8], pin: String?, address: String, verifiedFingerprint: String?) async throws(NearbyError) -> PrepareUploadResponse? {
        do {
            return try await decide(body: body, pin: pin, address: address, verifiedFingerprint: verifiedFingerprint)
        } catch {
            logger.notice("nearby: prepare-upload from \(address) refused: \(error)")
            throw error
        }
    }

    private func decide(body: [UInt8], pin: String?, address: String, verifiedFingerprint: String?) async throws(NearbyError) -> PrepareUploadResponse? {
        let request = try Self.decode(body)
        try Self.validate(request.info)
        if request.files.isEmpty {
            logger.info("nearby: prepare-upload from \(address) lists no files: 204, nothing to transfer")
            return nil
        }
        if let message = try NearbyTextMessage.carried(by: request) {
            try await receive(message, from: request.info, pin: pin, address: address, verifiedFingerprint: verifiedFingerprint)
            return nil
        }
        let files = try validate(request.files)

        try takeSlot(address: address)
        var admitted = false
        defer { if !admitted { state.withLock { $0.deciding = false } } }

        let fingerprint = verifiedFingerprint ?? request.info.fingerprint
        let admission = try admit(fingerprint: fingerprint, pin: pin, address: address)

        var targets: [String: String] = [:]
        for file in files { targets[file.id] = try await delivery.target(for: file) }
        try checkFreeSpace(for: files)

        if admission == .asked {
            guard let prompt = configuration.prompt else {
                throw .rejected("this receiver accepts only trusted senders\(configuration.pin == nil ? "" : " and senders with its PIN"); ask its owner to trust your fingerprint \(fingerprint)")
            }
            let question = ConsentRequest(alias: request.info.alias, fingerprint: fingerprint, address: address,
                                          files: files.map { ($0.fileName, $0.size, targets[$0.id] ?? "") })
            guard await prompt.ask(question) else { throw .rejected("the user declined") }
        }

        let sender = NearbySender(alias: request.info.alias, fingerprint: fingerprint, fingerprintVerified: verifiedFingerprint != nil,
                                  address: address, admission: admission)
        var sessionFiles: [String: ReceiveSession.File] = [:]
        for file in files {
            sessionFiles[file.id] = ReceiveSession.File(metadata: file, token: ReceiveSession.token(), bundleID: targets[file.id] ?? "")
        }
        let session = ReceiveSession(id: UUID().uuidString.lowercased(), sender: sender, files: sessionFiles, lastActivity: .now)
        state.withLock {
            $0.session = session
            $0.deciding = false
        }
        admitted = true
        logger.info("nearby: session \(session.id.prefix(8)) from \(sender): \(files.count) file(s) accepted")
        return PrepareUploadResponse(sessionId: session.id, files: sessionFiles.mapValues(\.token))
    }

    /// A text message: let in by trust, PIN or nobody yet, like files (a PIN receiver wants its
    /// PIN), then always put to the person — trust lets a sender's files in, never makes this
    /// computer open what it sends. On a yes, a URL goes to the broker's router and a text to
    /// ``Configuration/showText``; the sender hears 204, as the reference app answers a message it
    /// showed, and uploads nothing. Declined or unanswered: 403, and nothing is opened.
    private func receive(_ message: NearbyTextMessage, from info: NearbyDevice, pin: String?, address: String, verifiedFingerprint: String?) async throws(NearbyError) {
        try takeSlot(address: address)
        defer { state.withLock { $0.deciding = false } }
        let fingerprint = verifiedFingerprint ?? info.fingerprint
        let admission = try admit(fingerprint: fingerprint, pin: pin, address: address)
        guard let prompt = configuration.messagePrompt else {
            throw .rejected("nobody can be asked about a text message here (no terminal, no notification server), and a message is never taken without its user's answer")
        }
        let sender = NearbySender(alias: info.alias, fingerprint: fingerprint, fingerprintVerified: verifiedFingerprint != nil, address: address, admission: admission)
        let question = ConsentRequest(alias: info.alias, fingerprint: fingerprint, address: address, message: message, admission: admission)
        guard await prompt.ask(question) else { throw .rejected("the user declined the text message") }
        if let url = message.url {
            let app = try await delivery.open(url: url, from: sender)
            logger.notice("nearby: text message from \(sender): the user opened the link \(CleanText.escaped(url.prefix(200)).debugDescription) with \(app)")
        } else {
            configuration.showText(message)
            logger.notice("nearby: text message from \(sender): shown to the user (\(message.text.count) characters)")
        }
    }

    /// The JSON body, or a 400 saying where it is wrong.
    static func decode(_ body: [UInt8]) throws(NearbyError) -> PrepareUploadRequest {
        do {
            return try JSONDecoder().decode(PrepareUploadRequest.self, from: Data(body))
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalid("the prepare-upload body is not JSON: \(context.debugDescription) \(context.underlyingError.map { "(\($0))" } ?? "")")
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalid("the prepare-upload body lacks \(Self.path(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .invalid("the prepare-upload body has the wrong type at \(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .invalid("the prepare-upload body has null at \(Self.path(context.codingPath))")
        } catch {
            throw .invalid("the prepare-upload body cannot be read: \(error)")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// What the user is shown of the sender (its alias, its declared fingerprint) must be clean
    /// text: a newline or an escape sequence could fake the prompt's text, a bidi override reorder it.
    static func validate(_ sender: NearbyDevice) throws(NearbyError) {
        for (key, value, least) in [("alias", sender.alias, 1), ("fingerprint", sender.fingerprint, 0)] {
            guard (least...256).contains(value.count) else { throw .invalid("info.\(key) must be \(least) to 256 characters") }
            if let unclean = CleanText.firstUnclean(in: value) {
                throw .invalid("info.\(key) \(CleanText.escaped(value.prefix(60)).debugDescription) contains \(unclean) at character \(unclean.offset + 1); only printable text is shown to the user")
            }
        }
    }

    /// The files, in a stable order, each checked: ids, names, sizes, hashes, limits.
    private func validate(_ files: [String: NearbyFile]) throws(NearbyError) -> [NearbyFile] {
        let limits = configuration.limits
        guard files.count <= limits.maximumFileCount else {
            throw .invalid("prepare-upload lists \(files.count) files; at most \(limits.maximumFileCount) are accepted in one session, send the rest in another")
        }
        var total: Int64 = 0
        for (key, file) in files {
            guard key == file.id, !key.isEmpty, key.utf8.count <= 256 else {
                throw .invalid("file id \(key.prefix(64).debugDescription) does not match its entry's id \(file.id.prefix(64).debugDescription)")
            }
            try NearbyFileName.validate(file.fileName)
            guard file.size >= 0 else { throw .invalid("\(file.fileName.debugDescription) has a negative size") }
            guard file.size <= limits.maximumFileBytes else {
                throw NearbyError(413, "\(file.fileName.debugDescription) is \(ByteCount(file.size)); at most \(ByteCount(limits.maximumFileBytes)) per file are accepted")
            }
            if let hash = file.sha256, !(hash.count == 64 && hash.allSatisfy(\.isHexDigit)) {
                throw .invalid("\(file.fileName.debugDescription) has a sha256 that is not 64 hex digits")
            }
            total += file.size
        }
        guard total <= limits.maximumDropBytes else {
            throw NearbyError(413, "the files add up to \(ByteCount(total)); at most \(ByteCount(limits.maximumDropBytes)) are accepted in one session")
        }
        return files.values.sorted { ($0.fileName, $0.id) < ($1.fileName, $1.id) }
    }

    /// Takes the session slot, or 409 while another session runs (or is being decided); drops an
    /// idle session first.
    private func takeSlot(address: String) throws(NearbyError) {
        let expired: ReceiveSession? = try state.withLock { (state) throws(NearbyError) -> ReceiveSession? in
            var expired: ReceiveSession?
            if let session = state.session, !session.isUploading, ContinuousClock.now - session.lastActivity > configuration.idleSessionTimeout {
                expired = session
                state.session = nil
            }
            if state.deciding || state.session != nil {
                throw NearbyError(409, "another session is active on this receiver; try again when it has finished")
            }
            state.deciding = true
            return expired
        }
        if let expired { logger.info("nearby: \(expired.summary) (expired: the sender went quiet)") }
    }

    /// Trusted, PIN, or to be asked; 401/429 for a missing or wrong PIN.
    private func admit(fingerprint: String, pin: String?, address: String) throws(NearbyError) -> NearbySender.Admission {
        if configuration.trustList().contains(fingerprint) { return .trusted }
        guard let pinGate else { return .asked }
        try pinGate.check(pin, from: address)
        return .pin
    }


    /// The session's bytes plus the Inbox's reserve; twice the bytes when uploads go through the
    /// staging folder (staging, then the Inbox's copy).
    private func checkFreeSpace(for files: [NearbyFile]) throws(NearbyError) {
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        let copies: Int64 = configuration.inboxes == nil ? 2 : 1
        var folder = configuration.stagingFolder
        while !FileManager.default.fileExists(atPath: folder), folder.count > 1 { folder = (folder as NSString).deletingLastPathComponent }
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return }
        let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        let needed = copies * total + configuration.limits.reservedFreeBytes
        guard needed <= free else {
            throw .rejected("not enough free space: receiving \(ByteCount(total)) needs \(ByteCount(needed)) free, \(ByteCount(free)) are")
        }
    }

    // MARK: - Uploads

    /// The open session's id: v1's `send` and `cancel` name none, there being only one.
    public var openSessionID: String? { state.withLock { $0.session?.id } }

    /// `POST upload`: checks the parameters against the session; the upload may then stream.
    public func beginUpload(sessionID: String?, fileID: String?, token: String?, address: String, contentLength: Int64?) throws(NearbyError) -> UploadTicket {
        guard let sessionID, let fileID, let token, !sessionID.isEmpty, !fileID.isEmpty, !token.isEmpty else {
            throw .invalid("upload needs sessionId, fileId and token (v1's send: fileId and token)")
        }
        do throws(NearbyError) {
            let ticket = try state.withLock { (state) throws(NearbyError) -> UploadTicket in
                if let done = state.delivered[Self.deliveryKey(sessionID, fileID, token)], done.address == address {
                    throw NearbyError.alreadyDelivered(done.path)
                }
                guard var session = state.session else { throw .rejected("no session is open; start with prepare-upload") }
                guard session.id == sessionID else { throw NearbyError(409, "blocked by another session") }
                guard session.sender.address == address else { throw .rejected("invalid token or IP address") }
                guard var file = session.files[fileID], PINGate.constantTimeEqual(file.token, token) else {
                    throw .rejected("invalid token or IP address")
                }
                guard file.state == .waiting else { throw NearbyError(409, "\(file.metadata.fileName.debugDescription) is already being or has been uploaded in this session") }
                file.state = .uploading
                session.files[fileID] = file
                session.lastActivity = .now
                state.session = session
                return UploadTicket(sessionID: sessionID, file: file.metadata, bundleID: file.bundleID, sender: session.sender)
            }
            // A body that cannot be what was announced fails the file (the session goes on with
            // the others, or ends): it is refused before a byte is stored.
            if let contentLength, contentLength != ticket.file.size {
                let refusal = NearbyError.invalid("the upload's Content-Length is \(contentLength) but prepare-upload announced \(ticket.file.size) bytes for \(ticket.file.fileName.debugDescription)")
                settle(ticket, .failed(refusal.message))
                throw refusal
            }
            return ticket
        } catch where error.status == 200 {
            throw error
        } catch {
            logger.notice("nearby: upload from \(address) refused: \(error)")
            throw error
        }
    }

    private static func deliveryKey(_ sessionID: String, _ fileID: String, _ token: String) -> String {
        "\(sessionID)\u{0}\(fileID)\u{0}\(token)"
    }

    /// Whether `ticket`'s session is still open (the sender has not cancelled it): checked as the
    /// body streams, and once more before the file is delivered.
    func isOpen(_ ticket: UploadTicket) -> Bool {
        state.withLock { $0.session?.id == ticket.sessionID }
    }

    /// Where `ticket`'s body goes: an unnamed file in its app's Inbox, else the staging folder
    /// (said once in the log, with why); its blocks reserved (a full disk refuses it here).
    func stage(_ ticket: UploadTicket) throws(NearbyError) -> StagedUpload {
        let staged = try openStaging(ticket)
        try staged.preallocate()
        return staged
    }

    private func openStaging(_ ticket: UploadTicket) throws(NearbyError) -> StagedUpload {
        let hashing = ticket.file.sha256 != nil
        if let inboxes = configuration.inboxes {
            do {
                return try StagedUpload(unnamedIn: inboxes, bundleID: ticket.bundleID, expectedSize: ticket.file.size, hashing: hashing)
            } catch {
                if state.withLock({ state in defer { state.toldAboutStaging = true }; return !state.toldAboutStaging }) {
                    logger.notice("nearby: uploads go through \(configuration.stagingFolder) and are copied into the Inbox: \(error.message)")
                }
            }
        }
        return try StagedUpload(in: configuration.stagingFolder, expectedSize: ticket.file.size, hashing: hashing)
    }

    /// The body has ended: checks it, delivers it, removes the staging file; returns the Inbox path.
    func finishUpload(_ ticket: UploadTicket, staged: StagedUpload) async throws(NearbyError) -> String {
        defer { staged.discard() }
        do throws(NearbyError) {
            try staged.complete(sha256: ticket.file.sha256)
            guard isOpen(ticket) else { throw NearbyError.cancelled }
            let delivered = try await delivery.deliver(descriptor: staged.descriptor, name: ticket.file.fileName, to: ticket.bundleID, from: ticket.sender)
            let path = delivered.path
            if let problem = delivered.unconfirmed {
                logger.notice("nearby: \(ticket.file.fileName.debugDescription) is in the Inbox (\(path)), but the broker's answer did not come: \(problem); the sender is told it was delivered")
            }
            if !isOpen(ticket) {
                logger.notice("nearby: \(ticket.file.fileName.debugDescription) from \(ticket.sender.address) was delivered to \(path) while the sender cancelled the session (the cancel came after the file was complete)")
            }
            settle(ticket, .delivered(path))
            return path
        } catch {
            settle(ticket, .failed(error.message))
            throw error
        }
    }

    /// The upload stopped before its end (the connection closed, a write failed).
    func abandonUpload(_ ticket: UploadTicket, reason: String) {
        settle(ticket, .failed(reason))
    }

    private func settle(_ ticket: UploadTicket, _ outcome: ReceiveSession.FileState) {
        let finished: ReceiveSession? = state.withLock { state in
            guard var session = state.session, session.id == ticket.sessionID else { return nil }
            session.files[ticket.file.id]?.state = outcome
            if case .delivered(let path) = outcome, let token = session.files[ticket.file.id]?.token {
                let key = Self.deliveryKey(ticket.sessionID, ticket.file.id, token)
                state.delivered[key] = (ticket.sender.address, path)
                state.deliveredOrder.append(key)
                if state.deliveredOrder.count > 256 { state.delivered[state.deliveredOrder.removeFirst()] = nil }
            }
            session.lastActivity = .now
            state.session = session.isFinished ? nil : session
            return session.isFinished ? session : nil
        }
        if case .failed(let why) = outcome { logger.notice("nearby: upload of \(ticket.file.fileName.debugDescription) from \(ticket.sender.address) failed: \(why)") }
        if let finished { logger.notice("nearby: \(finished.summary)") }
    }

    /// `POST cancel`: ends the session when it is the caller's.
    public func cancel(sessionID: String?, address: String) throws(NearbyError) {
        let cancelled: ReceiveSession? = try state.withLock { (state) throws(NearbyError) -> ReceiveSession? in
            guard let session = state.session, session.id == sessionID else {
                throw .rejected("no such session")
            }
            guard session.sender.address == address else { throw .rejected("invalid IP address") }
            state.session = nil
            return session
        }
        // An upload in flight sees the session gone at its next chunk, stops, and leaves nothing.
        if let cancelled { logger.notice("nearby: \(cancelled.summary) (cancelled by the sender\(cancelled.isUploading ? "; the upload in flight is stopped, nothing of it is kept" : ""))") }
    }

    /// Removes uploads a killed receiver left in the staging folder (call before serving).
    public func sweepStaging() -> [String] { StagedUpload.sweep(configuration.stagingFolder) }

    /// Whether a session is open (tests, and `receive --once`).
    public var hasSession: Bool { state.withLock { $0.session != nil || $0.deciding } }
}
