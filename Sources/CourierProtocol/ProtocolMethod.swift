public import DBus
public import CourierNames

/// One method of a Courier interface, declared once: its interface, name, signatures and argument
/// names. The serving side makes it a `DBusMethod` by adding a handler (`serving`); the calling
/// side calls it (`call`) and checks the reply against `results`, so neither spells the member,
/// its signature or the shape of its reply.
public struct ProtocolMethod: Sendable {
    public let interface: InterfaceName
    public let name: MemberName
    public let arguments: Signature
    public let results: Signature
    public let argumentNames: [String]
    public let resultNames: [String]

    init(
        _ interface: InterfaceName, _ name: MemberName, arguments: Signature = .empty, results: Signature = .empty,
        argumentNames: [String] = [], resultNames: [String] = []
    ) {
        self.interface = interface
        self.name = name
        self.arguments = arguments
        self.results = results
        self.argumentNames = argumentNames
        self.resultNames = resultNames
    }

    /// The method served by an `async` handler.
    public func serving(_ handler: @escaping DBusMethodHandler) -> DBusMethod {
        DBusMethod(name, arguments: arguments, results: results, argumentNames: argumentNames, resultNames: resultNames, handler: handler)
    }

    /// The method served inline on the I/O thread (`DBusImmediateMethodHandler`).
    public func serving(immediate handler: @escaping DBusImmediateMethodHandler) -> DBusMethod {
        DBusMethod(name, arguments: arguments, results: results, argumentNames: argumentNames, resultNames: resultNames, immediate: handler)
    }

    /// The method answered later through a `DBusMethodReply` (`DBusDeferredMethodHandler`).
    public func serving(deferred handler: @escaping DBusDeferredMethodHandler) -> DBusMethod {
        DBusMethod(name, arguments: arguments, results: results, argumentNames: argumentNames, resultNames: resultNames, deferred: handler)
    }

    /// Calls the method on `path` at `destination` (nil on a direct link) and returns the reply
    /// message, its body checked against `results`.
    public func callMessage(
        on connection: DBusConnection, _ destination: BusName?, path: ObjectPath, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(CourierError) -> DBusMessage {
        let reply: DBusMessage
        do {
            reply = try await connection.callMessage(destination, path: path, interface: interface, method: name, arguments, timeout: timeout)
        } catch {
            throw CourierError(wrapping: error)
        }
        try checkReply(reply)
        return reply
    }

    /// `callMessage`'s checked body.
    public func call(
        on connection: DBusConnection, _ destination: BusName?, path: ObjectPath, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(CourierError) -> [DBusValue] {
        try await callMessage(on: connection, destination, path: path, arguments, timeout: timeout).body
    }

    /// Sends the call without asking for an answer.
    public func callNoReply(on connection: DBusConnection, _ destination: BusName?, path: ObjectPath, _ arguments: [DBusValue]) throws(CourierError) {
        do {
            try connection.callNoReply(destination, path: path, interface: interface, method: name, arguments)
        } catch {
            throw CourierError(wrapping: error)
        }
    }

    /// Throws `Bus` when `reply` does not have the declared result signature (its header's
    /// signature: no value is inspected, so the check costs a comparison on the hot path).
    public func checkReply(_ reply: DBusMessage) throws(CourierError) {
        guard reply.signature.rawValue == results.rawValue else {
            throw CourierError(.bus, "\(interface).\(name) answered with signature '\(reply.signature)', not '\(results)'")
        }
    }

    /// Throws `Bus` when `body` does not have the declared result signature: a peer speaking
    /// another version of the interface is named, not decoded by guesswork.
    public func checkReply(_ body: [DBusValue]) throws(CourierError) {
        guard body.count == results.types.count, zip(body, results.types).allSatisfy({ $0.type == $1 }) else {
            let got = body.map(\.type.signature).joined()
            throw CourierError(.bus, "\(interface).\(name) answered with signature '\(got)', not '\(results)'")
        }
    }
}

/// One signal of a Courier interface, declared once: the emitter (`emit`) and the listener
/// (`matchRule`, `checkBody`) use the same declaration.
public struct ProtocolSignal: Sendable {
    public let interface: InterfaceName
    public let name: MemberName
    public let arguments: Signature
    public let argumentNames: [String]

    init(_ interface: InterfaceName, _ name: MemberName, arguments: Signature, argumentNames: [String]) {
        self.interface = interface
        self.name = name
        self.arguments = arguments
        self.argumentNames = argumentNames
    }

    /// The signal as introspection declares it.
    public var dbusSignal: DBusSignal { DBusSignal(name, arguments: arguments, argumentNames: argumentNames) }

    /// Emits the signal from `path`, to every subscriber or only to `destination`.
    public func emit(on connection: DBusConnection, path: ObjectPath, _ arguments: [DBusValue], destination: BusName? = nil) throws(DBusError) {
        try connection.emitSignal(path: path, interface: interface, member: name, arguments, destination: destination)
    }

    /// The rule that subscribes to this signal from `path`, filtered on string arguments.
    public func matchRule(path: ObjectPath, arguments: [Int: String] = [:]) -> MatchRule {
        MatchRule(path: path, interface: interface, member: name, arguments: arguments)
    }

    /// Whether `body` has the declared signature.
    public func matches(_ body: [DBusValue]) -> Bool {
        body.count == arguments.types.count && zip(body, arguments.types).allSatisfy { $0.type == $1 }
    }
}
