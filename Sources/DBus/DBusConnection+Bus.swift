/// Name ownership, signal subscriptions, name-owner tracking and caller credentials: the
/// `org.freedesktop.DBus` services, asynchronously.
extension DBusConnection {
    static let busPath = ObjectPath(unchecked: "/org/freedesktop/DBus")
    static let busInterface = InterfaceName(unchecked: "org.freedesktop.DBus")

    func callBus(_ method: MemberName, _ args: [DBusValue] = []) async throws -> [DBusValue] {
        try await call(.bus, path: Self.busPath, interface: Self.busInterface, method: method, args)
    }

    // MARK: Names

    /// Asks the bus for `name` (`RequestName`). Check the reply: only `.primaryOwner` and
    /// `.alreadyOwner` mean this connection owns it now.
    @discardableResult
    public func requestName(_ name: BusName, flags: RequestNameFlags = []) async throws -> RequestNameReply {
        let r = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags.rawValue)])
        guard let code = r.first?.uint32Value, let reply = RequestNameReply(rawValue: code) else {
            throw DBusError.failed("unexpected RequestName reply \(r)")
        }
        return reply
    }

    /// Gives `name` up (`ReleaseName`).
    @discardableResult
    public func releaseName(_ name: BusName) async throws -> ReleaseNameReply {
        let r = try await callBus("ReleaseName", [.string(name.rawValue)])
        guard let code = r.first?.uint32Value, let reply = ReleaseNameReply(rawValue: code) else {
            throw DBusError.failed("unexpected ReleaseName reply \(r)")
        }
        return reply
    }

    /// The unique name currently owning `name`, or nil when nobody does.
    public func nameOwner(of name: BusName) async throws -> BusName? {
        do {
            let r = try await callBus("GetNameOwner", [.string(name.rawValue)])
            return r.first?.stringValue.flatMap { BusName(validating: $0) }
        } catch let e as DBusError where e.name == DBusError.nameHasNoOwnerName {
            return nil
        }
    }

    // MARK: Credentials

    /// The credentials the bus vouches for about the connection `name` (`GetConnectionCredentials`).
    /// Throws when the bus cannot tell (for example the peer has gone): treat that as "unknown",
    /// never as trusted.
    public func credentials(of name: BusName) async throws -> Credentials {
        let r = try await callBus("GetConnectionCredentials", [.string(name.rawValue)])
        guard let dict = r.first?.vardictValue else {
            throw DBusError.failed("unexpected GetConnectionCredentials reply for \(name)")
        }
        var label: String?
        if var raw = dict["LinuxSecurityLabel"]?.bytesValue {
            if raw.last == 0 { raw.removeLast() }
            label = String(decoding: raw, as: UTF8.self)
        }
        return Credentials(
            processID: dict["ProcessID"]?.uint32Value, userID: dict["UnixUserID"]?.uint32Value, securityLabel: label)
    }

    // MARK: Signals in

    /// Subscribes to signals matching `rule`. The match is registered on the bus before this
    /// returns, so no signal emitted afterwards is missed. The subscription (and its bus match)
    /// ends when the stream is dropped or cancelled; it finishes when the connection closes.
    public func signals(matching rule: MatchRule) async throws -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self, bufferingPolicy: .unbounded)
        let id = try await subscribe(
            rule, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
        // Strong: the connection lives until it is closed anyway (its I/O thread holds it; closing
        // finishes the stream, which drops this closure), and a `weak` reference would give it a
        // refcount side table that slows every retain and release of it.
        continuation.onTermination = { [self] _ in unsubscribe(id) }
        return stream
    }

    /// `NameOwnerChanged` events, for one name (a match on `arg0`) or all names.
    public func nameOwnerChanges(for name: BusName? = nil) async throws -> AsyncStream<NameOwnerChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: NameOwnerChange.self, bufferingPolicy: .unbounded)
        let rule = MatchRule(
            sender: .bus, path: Self.busPath, interface: Self.busInterface, member: "NameOwnerChanged",
            arguments: name.map { [0: $0.rawValue] } ?? [:])
        let id = try await subscribe(
            rule,
            deliver: { m in
                guard m.body.count == 3, let n = m.body[0].stringValue.flatMap({ BusName(validating: $0) }) else { return }
                let old = m.body[1].stringValue.flatMap { $0.isEmpty ? nil : BusName(validating: $0) }
                let new = m.body[2].stringValue.flatMap { $0.isEmpty ? nil : BusName(validating: $0) }
                continuation.yield(NameOwnerChange(name: n, oldOwner: old, newOwner: new))
            },
            finish: { continuation.finish() })
        continuation.onTermination = { [self] _ in unsubscribe(id) }
        return stream
    }

    func subscribe(
        _ rule: MatchRule, deliver: @escaping @Sendable (DBusMessage) -> Void, finish: @escaping @Sendable () -> Void
    ) async throws -> UInt64 {
        let id: UInt64? = state.withLock { st in
            if st.disconnected { return nil }
            let id = st.nextID
            st.nextID += 1
            st.subscriptions[id] = Subscription(rule: rule, deliver: deliver, finish: finish)
            return id
        }
        guard let id else { throw DBusError.disconnected("the D-Bus connection is closed; cannot subscribe") }
        if uniqueName != nil {
            do {
                _ = try await callBus("AddMatch", [.string(rule.ruleString)])
            } catch {
                _ = state.withLock { $0.subscriptions.removeValue(forKey: id) }
                throw error
            }
        }
        return id
    }

    func unsubscribe(_ id: UInt64) {
        let removed = state.withLock { $0.subscriptions.removeValue(forKey: id) }
        guard let removed, uniqueName != nil, isConnected else { return }
        let rule = removed.rule.ruleString
        Task(executorPreference: loop) { _ = try? await self.callBus("RemoveMatch", [.string(rule)]) }
    }
}

/// Flags of `RequestName` (`DBUS_NAME_FLAG_*`).
public struct RequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Let a later requester with `replaceExisting` take the name over.
    public static let allowReplacement = RequestNameFlags(rawValue: 1)
    /// Take the name from its owner if that owner allowed replacement.
    public static let replaceExisting = RequestNameFlags(rawValue: 2)
    /// Fail instead of queueing when the name is taken.
    public static let doNotQueue = RequestNameFlags(rawValue: 4)
}

/// Reply of `RequestName` (`DBUS_REQUEST_NAME_REPLY_*`).
public enum RequestNameReply: UInt32, Sendable {
    case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
    /// True when this connection now owns the name.
    public var isOwner: Bool { self == .primaryOwner || self == .alreadyOwner }
}

/// Reply of `ReleaseName` (`DBUS_RELEASE_NAME_REPLY_*`).
public enum ReleaseNameReply: UInt32, Sendable {
    case released = 1, nonExistent = 2, notOwner = 3
}

/// A `NameOwnerChanged` event: nil owners mean "nobody".
public struct NameOwnerChange: Sendable, Hashable {
    public var name: BusName
    public var oldOwner: BusName?
    public var newOwner: BusName?

    public init(name: BusName, oldOwner: BusName?, newOwner: BusName?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }
}

/// What the bus knows about a connection's process.
public struct Credentials: Sendable, Hashable {
    public var processID: UInt32?
    public var userID: UInt32?
    public var securityLabel: String?

    public init(processID: UInt32?, userID: UInt32?, securityLabel: String?) {
        self.processID = processID
        self.userID = userID
        self.securityLabel = securityLabel
    }
}
