/// The naming and routing plan shared by the driver, the clients and the checker: app `i` is
/// `org.example.load.appNN` with scheme `loadNN`; client `c`'s request `s` of a round goes to app
/// `first + (3c + s) mod count` — every client walks all the round's apps, starting at different
/// ones, so each cold app is asked by many clients at once.
struct LoadPlan: Sendable {
    /// The round's name, the URL's path (`warmup`, `run`).
    var round: String
    /// The first app index and how many apps the round addresses.
    var first: Int
    var count: Int

    static func bundleID(_ app: Int) -> String { "org.example.load.app" + twoDigits(app) }
    static func scheme(_ app: Int) -> String { "load" + twoDigits(app) }

    func app(client: Int, sequence: Int) -> Int { first + (3 * client + sequence) % count }

    /// `loadNN://load/ROUND?c=CLIENT&s=SEQUENCE`: what the app records.
    func url(client: Int, sequence: Int) -> String {
        "\(Self.scheme(app(client: client, sequence: sequence)))://load/\(round)?c=\(client)&s=\(sequence)"
    }

    /// Parses a recorded URL back into (scheme, round, client, sequence); nil when it is not one of ours.
    static func parse(_ url: Substring) -> (scheme: Substring, round: Substring, client: Int, sequence: Int)? {
        guard let schemeEnd = url.firstIndex(of: ":"), let query = url.firstIndex(of: "?") else { return nil }
        let scheme = url[..<schemeEnd]
        let path = url[url.index(schemeEnd, offsetBy: 3)..<query]
        guard path.hasPrefix("load/") else { return nil }
        var client: Int?
        var sequence: Int?
        for pair in url[url.index(after: query)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "c": client = Int(parts[1])
            case "s": sequence = Int(parts[1])
            default: return nil
            }
        }
        guard let client, let sequence else { return nil }
        return (scheme, path.dropFirst(5), client, sequence)
    }

    /// The name client `c`'s drop `k` of this round has (in the app's Inbox, and in the file URL
    /// the app is given): `drop-ROUND-C-K.txt`; its content is `dropContent`.
    func dropName(client: Int, drop: Int) -> String { "drop-\(round)-\(client)-\(drop).txt" }
    func dropContent(client: Int, drop: Int) -> String { "drop \(round) \(client) \(drop)\n" }

    /// Parses a delivered file URL (`file:///…/Inbox/drop-ROUND-C-K.txt`) into (round, client, drop).
    static func parseDrop(_ url: Substring) -> (round: Substring, client: Int, drop: Int)? {
        guard url.hasPrefix("file:"), let name = url.split(separator: "/").last, name.hasPrefix("drop-"), name.hasSuffix(".txt") else { return nil }
        let parts = name.dropFirst(5).dropLast(4).split(separator: "-")
        guard parts.count == 3, let client = Int(parts[1]), let drop = Int(parts[2]) else { return nil }
        return (parts[0], client, drop)
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
