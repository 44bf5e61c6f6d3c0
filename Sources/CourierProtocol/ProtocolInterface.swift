public import DBus

/// One Courier interface, declared once: its name, methods and signals, in the order introspection
/// lists them. The serving side builds its `DBusInterface` with `serving(_:)`, which refuses a
/// method the declaration does not list and a declared method without a handler, so what is
/// served, what clients call and the XML in docs/dbus-api cannot drift apart.
public struct ProtocolInterface: Sendable {
    public let name: InterfaceName
    public let methods: [ProtocolMethod]
    public let signals: [ProtocolSignal]

    init(_ name: InterfaceName, methods: [ProtocolMethod], signals: [ProtocolSignal] = []) {
        self.name = name
        self.methods = methods
        self.signals = signals
    }

    /// The served interface: `handlers` hold one `DBusMethod` per declared method (made with
    /// `ProtocolMethod.serving`), in any order; they are listed in the declared order.
    public func serving(_ handlers: [DBusMethod]) -> DBusInterface {
        var byName: [MemberName: DBusMethod] = [:]
        for handler in handlers {
            guard let declared = methods.first(where: { $0.name == handler.name }) else {
                preconditionFailure("\(name) declares no method \(handler.name)")
            }
            precondition(handler.arguments == declared.arguments && handler.results == declared.results,
                         "\(name).\(handler.name) is served with another signature than declared")
            byName[handler.name] = handler
        }
        let ordered = methods.map { declared in
            guard let handler = byName[declared.name] else { preconditionFailure("\(name).\(declared.name) is declared but not served") }
            return handler
        }
        return DBusInterface(name, methods: ordered, signals: signals.map(\.dbusSignal))
    }

    /// The interface as introspection describes it, its methods without handlers (they answer
    /// `UnknownMethod`): for generating documentation, never for serving.
    public var forIntrospection: DBusInterface {
        serving(methods.map { method in
            method.serving(immediate: { _ in throw DBusError(name: DBusError.unknownMethodName, message: "\(method.name) is a declaration, not served") })
        })
    }
}
