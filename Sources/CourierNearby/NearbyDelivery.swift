/// Where received files go: the receiving side of Nearby asks this twice per file — at
/// `prepare-upload`, which app will take it (so a file no app accepts is refused before a byte is
/// sent), and once the upload is complete and checked, to deliver it.
///
/// `BrokerDelivery` is the real one (the broker's `DropFiles`); tests of the protocol logic use
/// the same broker on a private bus.
public protocol NearbyDelivery: Sendable {
    /// The bundle id of the app that will receive `file`, or a 403 saying why no app will.
    func target(for file: NearbyFile) async throws(NearbyError) -> String

    /// Hands the complete file (`descriptor`, open for reading, positioned anywhere) to `bundleID`
    /// and returns where it landed (the Inbox path) once it is durably there, without waiting for
    /// the app's answer to its open. `sender` tells the app where it came from.
    func deliver(descriptor: Int32, name: String, to bundleID: String, from sender: NearbySender) async throws(NearbyError) -> NearbyDelivered

    /// Opens the URL of a text message the user accepted, through the broker's router as `courier
    /// open` does; returns the app that took it, or a 403 saying why nothing did.
    func open(url: String, from sender: NearbySender) async throws(NearbyError) -> String
}

/// A file durably in an Inbox. The app's answer to its open is not here: the app's business, the
/// broker logs it. `unconfirmed` says why the broker's own answer did not come although the file
/// is in the Inbox (made durable by the receiver then), for the log.
public struct NearbyDelivered: Sendable {
    public var path: String
    public var unconfirmed: String?

    public init(path: String, unconfirmed: String? = nil) {
        self.path = path
        self.unconfirmed = unconfirmed
    }
}

/// Who sent a session, as far as this receiver knows, and how it was let in.
public struct NearbySender: Sendable, Equatable, CustomStringConvertible {
    public var alias: String
    /// The fingerprint the sender declared (``fingerprintVerified`` says whether TLS proved it).
    public var fingerprint: String
    public var fingerprintVerified: Bool
    /// The peer's IP address (the TCP connection's).
    public var address: String
    public var admission: Admission

    /// How the session was let in (docs/nearby.md says what each proves).
    public enum Admission: String, Sendable {
        case trusted, pin, asked
    }

    public var description: String {
        "\(alias.debugDescription) (fingerprint \(fingerprint.prefix(16))…\(fingerprintVerified ? " verified" : " declared"), \(address)) admitted by \(admission.rawValue)"
    }
}
