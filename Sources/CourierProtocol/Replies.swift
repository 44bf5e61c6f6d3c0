public import DBus
public import CourierNames

/// `Broker1.OpenURL`'s reply: `(b handled, s bundle_id, a{sv} reply)`.
public struct OpenURLReply: Sendable {
    public var handled: Bool
    /// The app that got the URL (or would, in a dry run).
    public var bundleID: String
    /// The app's reply, or the dry run's answer (`dry-run`, `state`, `launchable`).
    public var reply: [String: DBusValue]

    public init(handled: Bool, bundleID: String, reply: [String: DBusValue]) {
        self.handled = handled
        self.bundleID = bundleID
        self.reply = reply
    }

    /// Decodes a reply body; `Bus` when it does not have the declared signature.
    public init(_ body: [DBusValue]) throws(CourierError) {
        try Broker1.openURL.checkReply(body)
        self.init(handled: body[0].boolValue ?? false, bundleID: body[1].stringValue ?? "", reply: body[2].vardictValue ?? [:])
    }

    /// Decodes a reply message; `Bus` when its signature is not the declared one.
    public init(reply message: DBusMessage) throws(CourierError) {
        try Broker1.openURL.checkReply(message)
        let body = message.body
        self.init(handled: body[0].boolValue ?? false, bundleID: body[1].stringValue ?? "", reply: body[2].vardictValue ?? [:])
    }

    public var body: [DBusValue] { [.boolean(handled), .string(bundleID), .vardict(reply)] }
}

/// `Application1.OpenURL`'s arguments: `(s url, s source_application, v annotation, a{sv} options)`.
public struct ApplicationOpenRequest: Sendable {
    public var url: String
    public var sourceApplication: String
    /// The caller's annotation; `""` on the wire when there is none.
    public var annotation: DBusValue?
    /// `CourierKey.background`, `activationToken`, `inbox`, `requestID`, `launch`, …
    public var options: [String: DBusValue]

    public init(url: String, sourceApplication: String, annotation: DBusValue?, options: [String: DBusValue]) {
        self.url = url
        self.sourceApplication = sourceApplication
        self.annotation = annotation
        self.options = options
    }

    /// Decodes the arguments of a call already checked against the declared signature.
    public init(_ arguments: [DBusValue]) {
        let annotation = arguments[2].unwrapped
        self.init(url: arguments[0].stringValue ?? "", sourceApplication: arguments[1].stringValue ?? "",
                  annotation: annotation == .string("") ? nil : annotation, options: arguments[3].vardictValue ?? [:])
    }

    public var body: [DBusValue] { [.string(url), .string(sourceApplication), .variant(annotation ?? .string("")), .vardict(options)] }
}

/// `Application1.OpenURL`'s reply: `(b handled, a{sv} reply)`.
public struct ApplicationOpenReply: Sendable {
    public var handled: Bool
    public var reply: [String: DBusValue]

    public init(handled: Bool, reply: [String: DBusValue]) {
        self.handled = handled
        self.reply = reply
    }

    /// Decodes a reply body; `AppFailed` when it does not have the declared signature.
    public init(_ body: [DBusValue]) throws(CourierError) {
        do throws(CourierError) { try Application1.openURL.checkReply(body) } catch { throw CourierError(.appFailed, error.message) }
        self.init(handled: body[0].boolValue ?? false, reply: body[1].vardictValue ?? [:])
    }

    /// Decodes a reply message; `AppFailed` when its signature is not the declared one.
    public init(reply message: DBusMessage) throws(CourierError) {
        do throws(CourierError) { try Application1.openURL.checkReply(message) } catch { throw CourierError(.appFailed, error.message) }
        let body = message.body
        self.init(handled: body[0].boolValue ?? false, reply: body[1].vardictValue ?? [:])
    }

    public var body: [DBusValue] { [.boolean(handled), .vardict(reply)] }
}

/// `Broker1.ApplicationStateChanged`: `(s bundle_id, s state, u pid)`.
public struct ApplicationStateChange: Sendable, Hashable {
    public var bundleID: String
    public var state: String
    public var pid: UInt32

    public init(bundleID: String, state: String, pid: UInt32) {
        self.bundleID = bundleID
        self.state = state
        self.pid = pid
    }

    /// Decodes a signal's body; nil when it does not have the declared signature.
    public init?(_ body: [DBusValue]) {
        guard Broker1.applicationStateChanged.matches(body), let id = body[0].stringValue, let state = body[1].stringValue,
              let pid = body[2].uint32Value else { return nil }
        self.init(bundleID: id, state: state, pid: pid)
    }

    public var body: [DBusValue] { [.string(bundleID), .string(state), .uint32(pid)] }
}

/// `Broker1.HandlersForFile`'s reply: `(s type, as bundle_ids, a{sv} details)`.
public struct FileHandlersReply: Sendable, Equatable {
    /// The file's uniform type identifier.
    public var type: String
    /// The apps that take it, the chosen one first (only the asked app with `CourierKey.bundleID`).
    public var bundleIDs: [String]
    /// Why the file has that type (`CourierKey.typeReason`).
    public var typeReason: String
    /// Why each candidate won or lost (`CourierKey.explanation`).
    public var explanation: String
    /// The desktop's MIME type for the file (`CourierKey.mimeType`): the content's or the sender's, else the type's own.
    public var mimeType: String?
    /// Per app of `bundleIDs`, the content type it declares that the file's type conforms to (`CourierKey.matchedTypes`).
    public var matchedTypes: [String: String]

    public init(type: String, bundleIDs: [String], typeReason: String, explanation: String, mimeType: String?, matchedTypes: [String: String]) {
        self.type = type
        self.bundleIDs = bundleIDs
        self.typeReason = typeReason
        self.explanation = explanation
        self.mimeType = mimeType
        self.matchedTypes = matchedTypes
    }

    /// Decodes a reply body; `Bus` when it does not have the declared signature.
    public init(_ body: [DBusValue]) throws(CourierError) {
        try Broker1.handlersForFile.checkReply(body)
        let details = body[2].vardictValue ?? [:]
        self.init(type: body[0].stringValue ?? "", bundleIDs: body[1].stringArrayValue ?? [],
                  typeReason: details[CourierKey.typeReason] ?? "", explanation: details[CourierKey.explanation] ?? "",
                  mimeType: details[CourierKey.mimeType], matchedTypes: details[CourierKey.matchedTypes] ?? [:])
    }

    public var body: [DBusValue] {
        var details = [String: DBusValue](CourierKey.typeReason(typeReason), CourierKey.explanation(explanation), CourierKey.matchedTypes(matchedTypes))
        details[CourierKey.mimeType] = mimeType
        return [.string(type), .strings(bundleIDs), .vardict(details)]
    }
}

/// `Broker1.SetDefault`'s reply: `(s key, s previous, s chosen)`, "" for none.
public struct DefaultChangeReply: Sendable {
    /// The scheme (lowercased) or the canonical type identifier the default is stored under.
    public var key: String
    /// The default it replaced.
    public var previous: String?
    /// The app the registry chooses now.
    public var chosen: String?

    public init(key: String, previous: String?, chosen: String?) {
        self.key = key
        self.previous = previous
        self.chosen = chosen
    }

    /// Decodes a reply body; `Bus` when it does not have the declared signature.
    public init(_ body: [DBusValue]) throws(CourierError) {
        try Broker1.setDefault.checkReply(body)
        let text = body.map { $0.stringValue ?? "" }
        self.init(key: text[0], previous: text[1].isEmpty ? nil : text[1], chosen: text[2].isEmpty ? nil : text[2])
    }

    public var body: [DBusValue] { [.string(key), .string(previous ?? ""), .string(chosen ?? "")] }
}

/// `Broker1.ExplainHandlersForURL`'s reply: `(as bundle_ids, a{sv} details)`.
public struct URLHandlersReply: Sendable {
    /// The apps that can open the URL, the chosen one first.
    public var bundleIDs: [String]
    /// Why each candidate won or lost (`CourierKey.explanation`).
    public var explanation: String
    /// What to try when none handles it (`CourierKey.advice`).
    public var advice: String?

    public init(bundleIDs: [String], explanation: String, advice: String?) {
        self.bundleIDs = bundleIDs
        self.explanation = explanation
        self.advice = advice
    }

    /// Decodes a reply body; `Bus` when it does not have the declared signature.
    public init(_ body: [DBusValue]) throws(CourierError) {
        try Broker1.explainHandlersForURL.checkReply(body)
        let details = body[1].vardictValue ?? [:]
        self.init(bundleIDs: body[0].stringArrayValue ?? [], explanation: details[CourierKey.explanation] ?? "", advice: details[CourierKey.advice])
    }

    public var body: [DBusValue] {
        var details = [String: DBusValue](CourierKey.explanation(explanation))
        details[CourierKey.advice] = advice
        return [.strings(bundleIDs), .vardict(details)]
    }
}

/// `Broker1.Launch`'s and `Restart`'s reply: `(a{sv} result)`, the app once it checked in.
public struct LaunchReply: Sendable, Hashable {
    /// The app was running already: nothing was launched (`CourierKey.alreadyRunning`).
    public var alreadyRunning: Bool
    /// Its state now (`CourierKey.state`).
    public var state: String?
    /// Its process (`CourierKey.pid`).
    public var pid: UInt32?

    public init(alreadyRunning: Bool, state: String?, pid: UInt32?) {
        self.alreadyRunning = alreadyRunning
        self.state = state
        self.pid = pid
    }

    /// Decodes a reply body; `Bus` when it does not have the declared signature (the method's
    /// results: `Launch` and `Restart` share them).
    public init(_ body: [DBusValue], of method: ProtocolMethod = Broker1.launch) throws(CourierError) {
        try method.checkReply(body)
        let result = body[0].vardictValue ?? [:]
        self.init(alreadyRunning: result[CourierKey.alreadyRunning] ?? false, state: result[CourierKey.state], pid: result[CourierKey.pid])
    }

    public var body: [DBusValue] {
        var result: [String: DBusValue] = [:]
        if alreadyRunning { result[CourierKey.alreadyRunning] = true }
        result[CourierKey.state] = state
        result[CourierKey.pid] = pid
        return [.vardict(result)]
    }
}
