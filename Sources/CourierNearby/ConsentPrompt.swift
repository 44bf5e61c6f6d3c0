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

    public init(alias: String, fingerprint: String, address: String, files: [(name: String, size: Int64, app: String)]) {
        self.alias = alias
        self.fingerprint = fingerprint
        self.address = address
        self.files = files
    }

    /// One line per file, for a prompt or a notification body.
    public var summary: String {
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var lines = ["\(alias) (\(address), fingerprint \(fingerprint.prefix(16))…) wants to send \(files.count) file(s), \(ByteCount(total)):"]
        for file in files.prefix(5) { lines.append("  \(file.name) (\(ByteCount(file.size))) → \(file.app)") }
        if files.count > 5 { lines.append("  … and \(files.count - 5) more") }
        return lines.joined(separator: "\n")
    }
}
