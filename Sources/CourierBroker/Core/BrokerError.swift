/// An error the broker answers with; every one maps to a D-Bus error named `org.courier.Error.<Code>`.
///
/// `Code` is an open set of static members (not a closed enum) so new failure kinds can be added
/// without breaking clients that switch over the known ones. `message` says what happened, to what,
/// and what to do next; it is what `courier open` prints on stderr.
public struct BrokerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; its `rawValue` is the last component of the D-Bus error name.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The URL is not a valid RFC 3986 URI, or does not match the owning app's declared format.
        public static let invalidURL = Code(rawValue: "InvalidURL")
        /// No registered app claims the URL's scheme (or the forced bundle id is unknown).
        public static let noHandler = Code(rawValue: "NoHandler")
        /// The app could not be started: exec failed, or it exited before checking in.
        public static let launchFailed = Code(rawValue: "LaunchFailed")
        /// The app was started but did not check in within its launch timeout.
        public static let launchTimeout = Code(rawValue: "LaunchTimeout")
        /// The app refused the request.
        public static let declined = Code(rawValue: "Declined")
        /// The caller may not do this (wrong identity, not the broker, a scheme it may not query).
        public static let notPermitted = Code(rawValue: "NotPermitted")
        /// A manifest could not be loaded or registered.
        public static let invalidManifest = Code(rawValue: "InvalidManifest")
        /// A queue, size or rate limit was reached; retry later.
        public static let limitsExceeded = Code(rawValue: "LimitsExceeded")
        /// The app died, left the bus or failed while handling the request; the next request relaunches it.
        public static let appFailed = Code(rawValue: "AppFailed")

        public var description: String { rawValue }
    }

    /// The prefix shared by every Courier error name on the bus.
    public static let dbusNamePrefix = "org.courier.Error."

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Rebuilds an error from a D-Bus error reply; `nil` when the name is not a Courier error.
    public init?(dbusName: String, message: String) {
        guard dbusName.hasPrefix(Self.dbusNamePrefix) else { return nil }
        self.init(Code(rawValue: String(dbusName.dropFirst(Self.dbusNamePrefix.count))), message)
    }

    /// The D-Bus error name, e.g. `org.courier.Error.LaunchTimeout`.
    public var dbusName: String { Self.dbusNamePrefix + code.rawValue }

    public var description: String { "\(dbusName): \(message)" }
}
