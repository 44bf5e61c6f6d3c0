import CourierInbox

/// Asks the user whether to accept an incoming session: the default consent mode, for senders
/// that are neither trusted nor in PIN mode. `TerminalPrompt` and `DesktopNotificationPrompt` are
/// the two real ones; the answer must come from a person, so there is no "accept all".
public protocol ConsentPrompt: Sendable {
    /// true to accept. Must return (false) within a bounded time when nobody answers.
    func ask(_ request: ConsentRequest) async -> Bool
}

/// What the user is asked about.
public struct ConsentRequest: Sendable {
    public var alias: String
    public var fingerprint: String
    public var address: String
    public var files: [(name: String, size: Int64, app: String)]
    /// A text message instead of files: asked about whoever sends it (trusted and PIN senders too).
    public var message: NearbyTextMessage?
    /// How the sender got this far (for a message: trusted, PIN, or nothing yet).
    public var admission: NearbySender.Admission

    public init(alias: String, fingerprint: String, address: String, files: [(name: String, size: Int64, app: String)]) {
        self.alias = alias
        self.fingerprint = fingerprint
        self.address = address
        self.files = files
        self.admission = .asked
    }

    /// A question about a text message.
    public init(alias: String, fingerprint: String, address: String, message: NearbyTextMessage, admission: NearbySender.Admission) {
        self.init(alias: alias, fingerprint: fingerprint, address: address, files: [])
        self.message = message
        self.admission = admission
    }

    /// The notification's summary line.
    public var title: String {
        guard let message else { return "Files from \(alias)" }
        return message.url == nil ? "Text from \(alias)" : "Link from \(alias)"
    }

    /// The label of the notification's accepting action.
    public var acceptLabel: String {
        guard let message else { return "Accept" }
        return message.url == nil ? "Show text" : "Open link"
    }

    /// The text a person reads: who, and either the files (one line each) or the message, cleaned
    /// and cut (``NearbyTextMessage/shown``), with what accepting does.
    public var summary: String {
        if let message { return messageSummary(message) }
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var lines = ["\(alias) (\(address), fingerprint \(fingerprint.prefix(16))…) wants to send \(files.count) file(s), \(ByteCount(total)):"]
        for file in files.prefix(5) { lines.append("  \(file.name) (\(ByteCount(file.size))) → \(file.app)") }
        if files.count > 5 { lines.append("  … and \(files.count - 5) more") }
        return lines.joined(separator: "\n")
    }

    private func messageSummary(_ message: NearbyTextMessage) -> String {
        let who = "\(alias) (\(address), fingerprint \(fingerprint.prefix(16))…\(admission == .asked ? "" : ", \(admission == .trusted ? "trusted" : "gave the PIN")"))"
        if message.url != nil {
            return "\(who) sends a link to open here:\n  \(message.shown)\nAccepting opens it with the app for its scheme (a web link: as Courier hands links to the desktop)."
        }
        return "\(who) sends a text:\n  \(message.shown)\nAccepting prints it on the receiver's standard output; nothing is stored or opened."
    }
}
