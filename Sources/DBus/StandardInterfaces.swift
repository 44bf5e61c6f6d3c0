/// The standard interfaces every exported object serves — `org.freedesktop.DBus.Peer`,
/// `.Introspectable` and `.Properties` — declared like any other interface, so that one
/// declaration drives their dispatch, argument checking and introspection XML.
enum StandardInterfaces {
    static let peer = DBusInterface(
        DBusConnection.peer,
        methods: [
            DBusMethod("Ping", immediate: { _ in [] }),
            DBusMethod("GetMachineId", results: "s", resultNames: ["machine_uuid"], immediate: { _ in [.string(try DBusConnection.localMachineID())] }),
        ])

    static let introspectable = DBusInterface(
        DBusConnection.introspectable,
        methods: [
            DBusMethod("Introspect", results: "s", resultNames: ["xml_data"], immediate: { call in
                [.string(call.connection.introspectionXML(at: call.path))]
            }),
        ])

    static let properties = DBusInterface(
        DBusConnection.properties,
        methods: [
            DBusMethod("Get", arguments: "ss", results: "v", argumentNames: ["interface_name", "property_name"], resultNames: ["value"], handler: { call in
                let p = try property(call)
                let v = try await p.get()
                guard v.type == p.type else { throw DBusError.failed("property \(p.name) produced type '\(v.type)' instead of '\(p.type)'") }
                return [.variant(v)]
            }),
            DBusMethod("GetAll", arguments: "s", results: "a{sv}", argumentNames: ["interface_name"], resultNames: ["properties"], handler: { call in
                var all: [String: DBusValue] = [:]
                for p in try interface(call).properties { all[p.name.rawValue] = try await p.get() }
                return [.vardict(all)]
            }),
            // Answered before `PropertiesChanged` is emitted: the caller sees its reply first.
            DBusMethod("Set", arguments: "ssv", argumentNames: ["interface_name", "property_name", "value"], deferred: { call, reply in
                let p: DBusProperty
                do { p = try property(call) } catch { return reply.fail(error) }
                let interfaceName = call.arguments[0].stringValue ?? ""
                guard let set = p.set else {
                    return reply.fail(DBusError.propertyReadOnly("property \(p.name) of \(interfaceName) is read-only"))
                }
                guard case .variant(let inner) = call.arguments[2], inner.type == p.type else {
                    return reply.fail(DBusError.invalidArgs("property \(p.name) has type '\(p.type)', got '\(call.arguments[2].unwrapped.type)'"))
                }
                Task(executorPreference: call.connection.loop) {
                    do {
                        try await set(inner)
                        reply.succeed([])
                        if p.emitsChanged, let interface = try? InterfaceName(interfaceName) {
                            try? call.connection.emitPropertiesChanged(path: call.path, interface: interface, changed: [p.name.rawValue: inner])
                        }
                    } catch { reply.fail(error) }
                }
            }),
        ],
        signals: [
            DBusSignal(
                "PropertiesChanged", arguments: "sa{sv}as",
                argumentNames: ["interface_name", "changed_properties", "invalidated_properties"]),
        ])

    /// In the order introspection lists them.
    static let all = [peer, introspectable, properties]

    /// The interface a `Properties` call names (its first argument) at the call's path.
    private static func interface(_ call: MethodCall) throws(DBusError) -> DBusInterface {
        let name = call.arguments[0].stringValue ?? ""
        let interfaces = call.connection.state.withLock { $0.interfaces(at: call.path) } ?? []
        guard let i = interfaces.first(where: { $0.name.rawValue == name }) else {
            throw .unknownInterface("object \(call.path) has no interface \(name)")
        }
        return i
    }

    /// The property a `Get` or `Set` call names (its first two arguments).
    private static func property(_ call: MethodCall) throws(DBusError) -> DBusProperty {
        let i = try interface(call)
        let name = call.arguments[1].stringValue ?? ""
        guard let p = i.properties.first(where: { $0.name.rawValue == name }) else {
            throw .unknownProperty("interface \(i.name) has no property \(name)")
        }
        return p
    }
}
