internal import CDBus

extension DBusConnection {
    /// Serves `interfaces` at `path`. Adding to a path that already serves other interfaces is
    /// allowed; serving an interface twice at one path throws.
    /// `org.freedesktop.DBus.Introspectable`, `.Properties` and `.Peer` come for free.
    @discardableResult
    public func export(_ interfaces: [DBusInterface], at path: ObjectPath) throws(DBusError) -> DBusObjectRegistration {
        let clash: InterfaceName? = state.withLock { st in
            let existing = st.objects[path] ?? []
            if let dup = interfaces.first(where: { i in existing.contains { $0.name == i.name } }) { return dup.name }
            st.objects[path] = existing + interfaces
            st.lastLookup = nil
            return nil
        }
        if let clash {
            throw DBusError.failed("interface \(clash) is already exported at \(path); remove the old registration first")
        }
        return DBusObjectRegistration(connection: self, path: path, interfaces: interfaces.map(\.name))
    }

    /// Stops serving `interfaces` at `path`.
    public func unexport(_ interfaces: [InterfaceName], at path: ObjectPath) {
        state.withLock { st in
            guard var list = st.objects[path] else { return }
            list.removeAll { interfaces.contains($0.name) }
            st.objects[path] = list.isEmpty ? nil : list
            st.lastLookup = nil
        }
    }

    static let introspectable = InterfaceName(unchecked: "org.freedesktop.DBus.Introspectable")
    static let properties = InterfaceName(unchecked: "org.freedesktop.DBus.Properties")
    static let peer = InterfaceName(unchecked: "org.freedesktop.DBus.Peer")

    /// `org.freedesktop.DBus.Peer` on every path, as libdbus's own dispatcher would answer it.
    private func handlePeer(_ m: DBusMessage) {
        switch (m.member?.rawValue, m.signature.rawValue) {
        case ("Ping", ""):
            try? sendValidatedReply(to: m, [])
        case ("GetMachineId", ""):
            var err = CDBus.DBusError()
            dbus_error_init(&err)
            defer { dbus_error_free(&err) }
            guard let id = dbus_try_get_local_machine_id(&err) else {
                return sendError(to: m, .failed("cannot read the machine id: \(err.message.map { String(cString: $0) } ?? "unknown error")"))
            }
            let text = String(cString: id)
            dbus_free(id)
            try? sendReply(to: m, [.string(text)])
        default:
            sendError(to: m, .unknownMethod("no method \(m.member?.rawValue ?? "") with signature '\(m.signature)' on org.freedesktop.DBus.Peer"))
        }
    }

    /// Routes a method call (I/O thread): standard interfaces, then the exported ones. `raw` is
    /// the libdbus message `m` was decoded from, borrowed for the duration of this call.
    func handleMethodCall(_ m: DBusMessage, raw: OpaquePointer) {
        guard let path = m.path, let member = m.member else { return }
        let interfaces = state.withLock { $0.interfaces(at: path) }
        if handleStandard(m, path: path, member: member, interfaces: interfaces) { return }
        guard let interfaces else {
            return sendError(to: m, .unknownObject("no object at path \(path)"))
        }
        // One pass, no intermediate arrays: this runs for every call the connection serves.
        var found: DBusMethod?
        var interfaceSeen = false
        for i in interfaces where m.interface == nil || i.name == m.interface {
            interfaceSeen = true
            if let match = i.methods.first(where: { $0.name == member }) {
                found = match
                break
            }
        }
        if let name = m.interface, !interfaceSeen {
            return sendError(to: m, .unknownInterface("object \(path) has no interface \(name)"))
        }
        guard let method = found else {
            return sendError(
                to: m,
                .unknownMethod("no method \(member) on interface \(m.interface?.rawValue ?? "(any)") at \(path)"))
        }
        guard m.signature == method.arguments else {
            return sendError(
                to: m,
                .invalidArgs("method \(member) expects arguments of signature '\(method.arguments)', got '\(m.signature)'"))
        }
        let call = MethodCall(connection: self, message: m)
        if let immediate = method.immediateHandler {
            // Inline, no task: the call's message is still borrowed here.
            let reply = ReplyTarget(borrowing: m.noReplyExpected ? nil : raw)
            do {
                finishCall(call, member: member, results: method.results, values: try immediate(call), reply: reply)
            } catch {
                sendError(to: m, Self.dbusError(error))
            }
            return
        }
        if let deferred = method.deferredHandler {
            // Inline too; the reply object keeps the message referenced until it is answered.
            let target = ReplyTarget(call: m.noReplyExpected ? nil : raw)
            deferred(call, DBusMethodReply(connection: self, call: call, member: member, results: method.results, target: target))
            return
        }
        // The reply is built from the call's own libdbus message (`dbus_message_new_method_return`
        // writes destination and reply serial in one header pass): keep it until the handler is done.
        // Only the task touches it from here on.
        let reply = ReplyTarget(call: m.noReplyExpected ? nil : raw)
        let handler = method.handler
        let results = method.results
        // Started synchronously on this (the I/O) thread until the handler's first suspension,
        // which resumes on the connection's executor: a handler that answers at once replies
        // before the next message is routed, with no job queued and no thread hop.
        Task.immediate(executorPreference: loop) {
            defer { reply.release() }
            do {
                self.finishCall(call, member: member, results: results, values: try await handler(call), reply: reply)
            } catch {
                self.sendError(to: call.message, Self.dbusError(error))
            }
        }
    }

    /// Checks a handler's values against the declared results and replies with them (or with
    /// the error saying what was wrong).
    func finishCall(_ call: MethodCall, member: MemberName, results: Signature, values: [DBusValue], reply: ReplyTarget) {
        guard values.count == results.types.count, zip(values, results.types).allSatisfy({ $0.hasType($1) }) else {
            let got = values.map(\.type.signature).joined()
            sendError(
                to: call.message,
                .failed("the handler of \(member) returned signature '\(got)' instead of the declared '\(results)'"))
            return
        }
        do {
            try MessageCodec.validateContents(values)
            try sendMethodReturn(reply, to: call.message, values)
        } catch { sendError(to: call.message, Self.dbusError(error)) }
    }

    /// `org.freedesktop.DBus.Introspectable`, `.Peer` and `.Properties`; false when `m` is for
    /// none of them (then it is routed to the exported interfaces).
    private func handleStandard(_ m: DBusMessage, path: ObjectPath, member: MemberName, interfaces: [DBusInterface]?) -> Bool {
        if m.interface == Self.introspectable || (m.interface == nil && member.rawValue == "Introspect") {
            let children = state.withLock { Self.children(of: path, in: $0.objects.keys) }
            if member.rawValue == "Introspect", interfaces != nil || !children.isEmpty {
                guard m.signature.rawValue.isEmpty else {
                    sendError(to: m, .invalidArgs("Introspect takes no arguments, got signature '\(m.signature)'"))
                    return true
                }
                try? sendReply(to: m, [.string(Introspection.xml(interfaces ?? [], children: children))])
                return true
            }
        }
        if m.interface == Self.peer {
            handlePeer(m)
            return true
        }
        if m.interface == Self.properties {
            guard let interfaces else {
                sendError(to: m, .unknownObject("no object at path \(path)"))
                return true
            }
            handleProperties(m, interfaces)
            return true
        }
        return false
    }

    /// The names of the direct children of `path` among exported paths.
    static func children(of path: ObjectPath, in paths: some Sequence<ObjectPath>) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for p in paths where p.rawValue.hasPrefix(prefix) && p != path {
            if let first = p.rawValue.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    private func handleProperties(_ m: DBusMessage, _ interfaces: [DBusInterface]) {
        func lookup(_ iface: String, _ name: String) -> Result<DBusProperty, DBusError> {
            guard let i = interfaces.first(where: { $0.name.rawValue == iface }) else {
                return .failure(.unknownInterface("object \(m.path ?? .root) has no interface \(iface)"))
            }
            guard let p = i.properties.first(where: { $0.name.rawValue == name }) else {
                return .failure(.unknownProperty("interface \(iface) has no property \(name)"))
            }
            return .success(p)
        }
        let args = m.body
        switch (m.member?.rawValue, m.signature.rawValue) {
        case ("Get", "ss"):
            switch lookup(args[0].stringValue ?? "", args[1].stringValue ?? "") {
            case .failure(let e): sendError(to: m, e)
            case .success(let p):
                Task(executorPreference: loop) {
                    do {
                        let v = try await p.get()
                        guard v.type == p.type else { throw DBusError.failed("property \(p.name) produced type '\(v.type)' instead of '\(p.type)'") }
                        try self.sendReply(to: m, [.variant(v)])
                    } catch { self.sendError(to: m, Self.dbusError(error)) }
                }
            }
        case ("Set", "ssv"):
            let ifaceName = args[0].stringValue ?? ""
            switch lookup(ifaceName, args[1].stringValue ?? "") {
            case .failure(let e): sendError(to: m, e)
            case .success(let p):
                guard let set = p.set else {
                    return sendError(to: m, .propertyReadOnly("property \(p.name) of \(ifaceName) is read-only"))
                }
                let value = args[2].unwrapped
                guard case .variant(let inner) = args[2], inner.type == p.type else {
                    return sendError(to: m, .invalidArgs("property \(p.name) has type '\(p.type)', got '\(value.type)'"))
                }
                Task(executorPreference: loop) {
                    do {
                        try await set(inner)
                        try self.sendReply(to: m, [])
                        if p.emitsChanged, let path = m.path, let iface = try? InterfaceName(ifaceName) {
                            try? self.emitPropertiesChanged(path: path, interface: iface, changed: [p.name.rawValue: inner])
                        }
                    } catch { self.sendError(to: m, Self.dbusError(error)) }
                }
            }
        case ("GetAll", "s"):
            let ifaceName = args[0].stringValue ?? ""
            guard let i = interfaces.first(where: { $0.name.rawValue == ifaceName }) else {
                return sendError(to: m, .unknownInterface("object \(m.path ?? .root) has no interface \(ifaceName)"))
            }
            Task(executorPreference: loop) {
                do {
                    var all: [String: DBusValue] = [:]
                    for p in i.properties { all[p.name.rawValue] = try await p.get() }
                    try self.sendReply(to: m, [.vardict(all)])
                } catch { self.sendError(to: m, Self.dbusError(error)) }
            }
        case ("Get", _), ("Set", _), ("GetAll", _):
            sendError(to: m, .invalidArgs("wrong signature '\(m.signature)' for Properties.\(m.member?.rawValue ?? "")"))
        default:
            sendError(to: m, .unknownMethod("no method \(m.member?.rawValue ?? "") on org.freedesktop.DBus.Properties"))
        }
    }

    static func dbusError(_ error: any Error) -> DBusError {
        if let e = error as? DBusError { return e }
        if let e = error as? DBusValidationError { return e.asDBusError }
        return .failed("\(error)")
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`.
    public func emitPropertiesChanged(
        path: ObjectPath, interface: InterfaceName, changed: [String: DBusValue], invalidated: [String] = []
    ) throws(DBusError) {
        try emitSignal(
            path: path, interface: Self.properties, member: "PropertiesChanged",
            [.string(interface.rawValue), .vardict(changed), .strings(invalidated)])
    }
}
