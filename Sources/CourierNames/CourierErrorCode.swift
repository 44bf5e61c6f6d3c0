/// The kinds of failure in Courier's public D-Bus contract (DESIGN.md): each is the last component
/// of a D-Bus error name, `org.courier.Error.<rawValue>`.
///
/// The one table of these names: the broker answers with them (`CourierError.Code`), clients decode
/// them (`CourierError.Code`), the Inbox classifies its refusals with them. An open set of static
/// members rather than a closed enum (the swift-system habit), so that a name added later still
/// travels intact to a client that does not know it.
public struct CourierErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The prefix shared by every Courier error name on the bus.
    public static let dbusNamePrefix = "org.courier.Error."

    /// The D-Bus error name, e.g. `org.courier.Error.LaunchTimeout`.
    public var dbusName: String { Self.dbusNamePrefix + rawValue }

    /// The code of a Courier error name; `nil` when `dbusName` is not `org.courier.Error.*`.
    public init?(dbusName: String) {
        guard dbusName.hasPrefix(Self.dbusNamePrefix), dbusName.count > Self.dbusNamePrefix.count else { return nil }
        self.init(rawValue: String(dbusName.dropFirst(Self.dbusNamePrefix.count)))
    }

    // MARK: Opening URLs

    /// The URL is not a valid RFC 3986 URI, or does not match the owning app's declared format.
    public static let invalidURL = CourierErrorCode(rawValue: "InvalidURL")
    /// No registered app claims the URL's scheme or the file's type (or the named app is unknown).
    public static let noHandler = CourierErrorCode(rawValue: "NoHandler")
    /// The app could not be started: exec failed, or it exited before checking in.
    public static let launchFailed = CourierErrorCode(rawValue: "LaunchFailed")
    /// The app was started but did not check in within its launch timeout.
    public static let launchTimeout = CourierErrorCode(rawValue: "LaunchTimeout")
    /// The app refused the request.
    public static let declined = CourierErrorCode(rawValue: "Declined")
    /// The caller may not do this (wrong identity, not the broker, a type the app does not declare).
    public static let notPermitted = CourierErrorCode(rawValue: "NotPermitted")
    /// Another process holds the app's bus name and is not the app (its pid is neither the one
    /// the broker launched nor running the executable the manifest launches): nothing is delivered
    /// until it lets the name go. The message names the pid. Exit status as `NotPermitted`.
    public static let nameSquatted = CourierErrorCode(rawValue: "NameSquatted")
    /// A manifest could not be loaded or registered.
    public static let invalidManifest = CourierErrorCode(rawValue: "InvalidManifest")
    /// A queue, size or rate limit was reached.
    public static let limitsExceeded = CourierErrorCode(rawValue: "LimitsExceeded")
    /// The app died, left the bus or failed while handling the request.
    public static let appFailed = CourierErrorCode(rawValue: "AppFailed")
    /// Delivered, but the app had not answered when the caller's own deadline (`timeout-ms`)
    /// passed: it may still act on the request. The caller's deadline is not the app's failure.
    public static let unanswered = CourierErrorCode(rawValue: "Unanswered")
    /// Never delivered, and never will be: the caller's deadline passed while the request waited
    /// in the app's queue (or the caller left the bus). Safe to send again.
    public static let withdrawn = CourierErrorCode(rawValue: "Withdrawn")
    /// The app's process (named with its pid) is hung: it did not answer a delivery within the
    /// broker's deadline, or did not leave the bus after it was told to terminate and signalled.
    public static let notResponding = CourierErrorCode(rawValue: "NotResponding")
    /// The arguments of the call are malformed (no files, names not matching files, a bad bundle id).
    public static let invalidArguments = CourierErrorCode(rawValue: "InvalidArguments")

    // MARK: Life cycle

    /// The app is not running (or still launching), so it cannot be quit.
    public static let notRunning = CourierErrorCode(rawValue: "NotRunning")
    /// The user took the app out of routing (`courier disable`); `courier enable` takes it back.
    /// Exit status as `NotPermitted`.
    public static let disabled = CourierErrorCode(rawValue: "Disabled")

    // MARK: Dropping files

    /// A dropped descriptor is not a readable regular file: a directory, pipe, socket, device,
    /// `O_PATH` or write-only descriptor, a deleted file, or a file whose size is not its content
    /// (`/proc`, `/sys`: copying its reported size would deliver an empty or cut file).
    public static let invalidFile = CourierErrorCode(rawValue: "InvalidFile")
    /// The Inbox's file system has not enough free space or inodes for the drop.
    public static let noSpace = CourierErrorCode(rawValue: "NoSpace")
    /// A folder on the way to the app's Inbox is a symbolic link or not a folder.
    public static let unsafeContainer = CourierErrorCode(rawValue: "UnsafeContainer")
    /// Any other failure (a system call failed); the message says which.
    public static let failed = CourierErrorCode(rawValue: "Failed")

    // MARK: Sharing

    /// No share activity accepts every item (docs/share.md).
    public static let noActivity = CourierErrorCode(rawValue: "NoActivity")
    /// The person asked to choose a share activity dismissed the choice.
    public static let dismissed = CourierErrorCode(rawValue: "Dismissed")
    /// Nobody can be asked to choose: no terminal and no desktop notification server.
    public static let nobodyToAsk = CourierErrorCode(rawValue: "NobodyToAsk")

    // MARK: Local: never on the bus

    /// No session bus, or no broker on it (and it could not be started).
    public static let brokerUnavailable = CourierErrorCode(rawValue: "BrokerUnavailable")
    /// A bundle id that is not a valid `BundleIdentifier`.
    public static let invalidBundleID = CourierErrorCode(rawValue: "InvalidBundleID")
    /// Any other D-Bus error; the client keeps the original name.
    public static let bus = CourierErrorCode(rawValue: "Bus")

    /// The bus's own answers when nobody owns `org.courier.Broker` or the connection is gone.
    public static let brokerUnreachableDBusNames: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.Disconnected",
    ]

    /// What a client makes of a D-Bus error reply: `org.courier.Error.X` is `X`, the bus saying
    /// the broker is not there is `brokerUnavailable`, anything else `bus`.
    public init(classifying dbusName: String) {
        if let code = CourierErrorCode(dbusName: dbusName) { self = code }
        else if Self.brokerUnreachableDBusNames.contains(dbusName) { self = .brokerUnavailable }
        else { self = .bus }
    }
}
