/// A refusal, as the protocol answers it: an HTTP status from the v2 tables (400 invalid body or
/// parameters, 401 PIN required or wrong, 403 rejected, 409 blocked by another session, 413 body
/// too large, 429 too many attempts, 500 receiver failure, 503 busy: try again shortly) and a message saying what was wrong
/// and what to do. The message is the response body (`{"message": …}`) and the log line.
public struct NearbyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(message)" }

    public static func invalid(_ message: String) -> NearbyError { NearbyError(400, message) }
    public static func rejected(_ message: String) -> NearbyError { NearbyError(403, message) }
    /// The sender cancelled the session while this file was on its way.
    public static let cancelled = NearbyError(403, "the session was cancelled by the sender; nothing of this file is kept")
    /// A retried upload of a file already in the Inbox: success, stored once.
    static func alreadyDelivered(_ path: String) -> NearbyError { NearbyError(200, "already delivered to \(path)") }
}
