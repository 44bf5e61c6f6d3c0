/// One interface of an exported object: the single declaration that drives dispatch, argument
/// checking and the introspection XML, so they cannot drift apart.
public struct DBusInterface: Sendable {
    public let name: InterfaceName
    public var methods: [DBusMethod]
    public var signals: [DBusSignal]
    public var properties: [DBusProperty]

    public init(
        _ name: InterfaceName, methods: [DBusMethod] = [], signals: [DBusSignal] = [],
        properties: [DBusProperty] = []
    ) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }
}

/// What a method handler receives: the call's arguments and who made it.
public struct MethodCall: Sendable {
    /// The connection the call arrived on (to make calls or emit signals from the handler).
    public let connection: DBusConnection
    /// The whole decoded message.
    public let message: DBusMessage
    /// The arguments, already checked against the method's declared signature.
    public var arguments: [DBusValue] { message.body }
    /// The caller's unique bus name (nil on a peer-to-peer connection). Look up its credentials
    /// with `connection.credentials(of:)`; never trust names the caller passes as arguments.
    public var sender: BusName? { message.sender }
    /// Every file descriptor that came with the call (owned; close or keep them).
    public var fds: [UnixFD] { message.fds }
    public var path: ObjectPath { message.path ?? .root }
}

/// A handler returns the reply's values (matching the method's `results` signature) or throws.
/// Throwing a `DBusError` replies with its name and message; any other error replies with
/// `org.freedesktop.DBus.Error.Failed` and the error's description.
public typealias DBusMethodHandler = @Sendable (MethodCall) async throws -> [DBusValue]

/// A handler that answers without awaiting anything: it runs inline on the connection's I/O
/// thread as the call is routed — no task is created — so it must be quick and must not block
/// (every message on the connection waits for it). Same contract for values and errors as
/// `DBusMethodHandler`.
public typealias DBusImmediateMethodHandler = @Sendable (MethodCall) throws -> [DBusValue]

/// A handler that answers later: it runs inline on the connection's I/O thread as the call is
/// routed (no task is created), starts whatever the answer needs without waiting for it — a call
/// with a completion, a job on a queue — and answers through `reply` from wherever that finishes.
/// It must return quickly and must not block. For request forwarding on a hot path, where an
/// `async` handler would keep a task suspended per call.
public typealias DBusDeferredMethodHandler = @Sendable (MethodCall, DBusMethodReply) -> Void

/// A method of an exported interface.
public struct DBusMethod: Sendable {
    public let name: MemberName
    /// The signature callers must use; anything else gets `InvalidArgs` before the handler runs.
    public let arguments: Signature
    /// The signature of the values the handler returns.
    public let results: Signature
    /// Names for introspection (optional; missing names are left out).
    public let argumentNames: [String]
    public let resultNames: [String]
    public let handler: DBusMethodHandler
    /// Set when the method was declared with an immediate handler (then `handler` calls it).
    public let immediateHandler: DBusImmediateMethodHandler?
    /// Set when the method was declared with a deferred handler (then `handler` calls it).
    public let deferredHandler: DBusDeferredMethodHandler?

    public init(
        _ name: MemberName, arguments: Signature = .empty, results: Signature = .empty,
        argumentNames: [String] = [], resultNames: [String] = [],
        handler: @escaping DBusMethodHandler
    ) {
        self.init(name, arguments, results, argumentNames, resultNames, handler, immediate: nil, deferred: nil)
    }

    /// A method whose handler never awaits (a getter, an echo, a state change): it is called on
    /// the I/O thread without starting a task, which saves a task's creation, scheduling and
    /// teardown per call. Use the `async` initializer for anything that awaits or takes time.
    public init(
        _ name: MemberName, arguments: Signature = .empty, results: Signature = .empty,
        argumentNames: [String] = [], resultNames: [String] = [],
        immediate: @escaping DBusImmediateMethodHandler
    ) {
        self.init(name, arguments, results, argumentNames, resultNames, { try immediate($0) }, immediate: immediate, deferred: nil)
    }

    /// A method that answers later through a `DBusMethodReply` (see `DBusDeferredMethodHandler`).
    public init(
        _ name: MemberName, arguments: Signature = .empty, results: Signature = .empty,
        argumentNames: [String] = [], resultNames: [String] = [],
        deferred: @escaping DBusDeferredMethodHandler
    ) {
        let handler: DBusMethodHandler = { call in
            try await withCheckedThrowingContinuation { deferred(call, DBusMethodReply($0)) }
        }
        self.init(name, arguments, results, argumentNames, resultNames, handler, immediate: nil, deferred: deferred)
    }

    private init(
        _ name: MemberName, _ arguments: Signature, _ results: Signature,
        _ argumentNames: [String], _ resultNames: [String],
        _ handler: @escaping DBusMethodHandler, immediate: DBusImmediateMethodHandler?, deferred: DBusDeferredMethodHandler?
    ) {
        self.name = name
        self.arguments = arguments
        self.results = results
        self.argumentNames = argumentNames
        self.resultNames = resultNames
        self.handler = handler
        self.immediateHandler = immediate
        self.deferredHandler = deferred
    }
}

/// A signal an interface emits (declared for introspection; emit with `DBusConnection.emitSignal`).
public struct DBusSignal: Sendable {
    public let name: MemberName
    public let arguments: Signature
    public let argumentNames: [String]

    public init(_ name: MemberName, arguments: Signature = .empty, argumentNames: [String] = []) {
        self.name = name
        self.arguments = arguments
        self.argumentNames = argumentNames
    }
}

/// A property served through `org.freedesktop.DBus.Properties`.
public struct DBusProperty: Sendable {
    public let name: MemberName
    public let type: DBusType
    public let get: @Sendable () async throws -> DBusValue
    /// Nil for a read-only property (`Set` then replies `PropertyReadOnly`).
    public let set: (@Sendable (DBusValue) async throws -> Void)?
    /// When true, a successful `Set` emits `PropertiesChanged` with the new value.
    public let emitsChanged: Bool

    public init(
        _ name: MemberName, type: DBusType, emitsChanged: Bool = true,
        get: @escaping @Sendable () async throws -> DBusValue,
        set: (@Sendable (DBusValue) async throws -> Void)? = nil
    ) {
        self.name = name
        self.type = type
        self.get = get
        self.set = set
        self.emitsChanged = emitsChanged
    }
}

/// A registration of interfaces at an object path; `remove()` (or `DBusConnection.unexport`) undoes it.
public struct DBusObjectRegistration: Sendable {
    public let connection: DBusConnection
    public let path: ObjectPath
    public let interfaces: [InterfaceName]

    /// Removes exactly the interfaces this registration added.
    public func remove() {
        connection.unexport(interfaces, at: path)
    }
}
