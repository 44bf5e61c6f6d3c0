/// The one error of Courier's contract, on both sides of the bus: the broker answers with it, the
/// app library and the CLI decode it, every command maps it to an exit status (`CourierExitCode`).
///
/// `code` comes from the one table (`CourierErrorCode`: an open set, so a name added later still
/// travels intact to a client that does not know it); `message` says what happened, to what, and
/// what to do next: it is what `courier open` prints on stderr and the D-Bus error message on the
/// wire. Dependency-free like the rest of this module, so every layer links the same type; the
/// edges that speak D-Bus turn it into their binding's error in one line (`dbusError`).
public struct CourierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; its `rawValue` is the last component of the D-Bus error name.
    public typealias Code = CourierErrorCode

    public var code: Code
    public var message: String
    /// The D-Bus error name: `org.courier.Error.<code>`, or, for an error a bus reply brought that
    /// is not a Courier one (`code` is `bus` or `brokerUnavailable`), the name it came with.
    public var dbusName: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        self.dbusName = code.dbusName
    }

    /// What a client makes of a D-Bus error reply (`CourierErrorCode(classifying:)`): a Courier
    /// name keeps its code, the bus saying the broker is not there becomes `brokerUnavailable`
    /// (with what to do about it), anything else `bus`; the original name is kept.
    public init(dbusName: String, message: String) {
        let code = Code(classifying: dbusName)
        self.code = code
        self.message = code == .brokerUnavailable ? "the Courier broker is not reachable (\(message)); start it with courierd" : message
        self.dbusName = dbusName
    }

    public var description: String { "\(dbusName): \(message)" }
}
