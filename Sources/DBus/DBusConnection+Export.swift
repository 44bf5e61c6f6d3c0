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

    /// The machine id `org.freedesktop.DBus.Peer.GetMachineId` answers, as libdbus reads it.
    static func localMachineID() throws(DBusError) -> String {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let id = dbus_try_get_local_machine_id(&err) else {
            throw .failed("cannot read the machine id: \(err.message.map { String(cString: $0) } ?? "unknown error")")
        }
        defer { dbus_free(id) }
        return String(cString: id)
    }

    /// Routes a method call (I/O thread): standard interfaces, then the exported ones. `raw` is
    /// the libdbus message `m` was decoded from, borrowed for the duration of this call.
    func handleMethodCall(_ m: DBusMessage, raw: OpaquePointer) {
        guard let path = m.path, let member = m.member else { return }
        let interfaces = state.withLock { $0.interfaces(at: path) }
        if handleStandard(m, path: path, member: member, interfaces: interfaces, raw: raw) { return }
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
        invoke(method, m, member: member, raw: raw)
    }

    /// Checks the call's arguments against `method`'s signature and runs its handler (I/O thread).
    private func invoke(_ method: DBusMethod, _ m: DBusMessage, member: MemberName, raw: OpaquePointer) {
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

    /// `org.freedesktop.DBus.Introspectable`, `.Peer` and `.Properties` (`StandardInterfaces`);
    /// false when `m` is for none of them (then it is routed to the exported interfaces). Peer
    /// answers on every path, as libdbus's own dispatcher would; Introspectable where there is an
    /// object or a child; Properties where there is an object.
    private func handleStandard(
        _ m: DBusMessage, path: ObjectPath, member: MemberName, interfaces: [DBusInterface]?, raw: OpaquePointer
    ) -> Bool {
        let standard: DBusInterface
        if m.interface == Self.peer {
            standard = StandardInterfaces.peer
        } else if m.interface == Self.properties {
            guard interfaces != nil else {
                sendError(to: m, .unknownObject("no object at path \(path)"))
                return true
            }
            standard = StandardInterfaces.properties
        } else if m.interface == Self.introspectable || (m.interface == nil && member.rawValue == "Introspect") {
            guard member.rawValue == "Introspect",
                interfaces != nil || !state.withLock({ Self.children(of: path, in: $0.objects.keys) }).isEmpty
            else { return false }
            standard = StandardInterfaces.introspectable
        } else {
            return false
        }
        guard let method = standard.methods.first(where: { $0.name == member }) else {
            sendError(to: m, .unknownMethod("no method \(member) on \(standard.name)"))
            return true
        }
        invoke(method, m, member: member, raw: raw)
        return true
    }

    /// What `Introspect` answers at `path`: the interfaces served there and its children.
    func introspectionXML(at path: ObjectPath) -> String {
        let (interfaces, children) = state.withLock { st in (st.interfaces(at: path), Self.children(of: path, in: st.objects.keys)) }
        return Introspection.xml(interfaces ?? [], children: children)
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
