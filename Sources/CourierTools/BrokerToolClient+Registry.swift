public import CourierNames
public import DBus
public import CourierProtocol

/// What the user's tools (`courier dump`, `handlers`, `default`, `status`, `courier nearby`) ask of
/// the broker's registry, the one there is: they never rebuild it in their own process, so what
/// they print or choose is what the broker routes by — apps registered at run time included, apps
/// it unregistered left out. An app links `Courier` alone and has no use for these.
extension Broker1Client {
    /// The apps that can open `url`, the chosen one first, with why (`ExplainHandlersForURL`).
    public func handlers(forURL url: String) async throws(CourierError) -> URLHandlersReply {
        try URLHandlersReply(await call(Broker1.explainHandlersForURL, [.string(url)]))
    }

    /// The type of a file and the apps that take it, the chosen one first (`HandlersForFile`): by
    /// `name`, and by content when `file` is given; `type` asks about a type instead of a name;
    /// `mimeType` is a sender's announced type, used when the name says nothing; `bundleID` asks
    /// whether that app takes it (`NoHandler`: not registered, `NotPermitted`: it does not).
    public func handlers(
        forFileNamed name: String, file: UnixFD? = nil, type: String? = nil, mimeType: String? = nil, bundleID: String? = nil
    ) async throws(CourierError) -> FileHandlersReply {
        var options: [String: DBusValue] = [:]
        options[CourierKey.type] = type
        options[CourierKey.mimeType] = mimeType
        options[CourierKey.bundleID] = bundleID
        return try FileHandlersReply(await call(Broker1.handlersForFile, [.string(name), .fds(file.map { [$0] } ?? []), .vardict(options)]))
    }

    /// The broker's registry as `courier dump` prints it (`Dump`), as text or JSON.
    public func dump(json: Bool) async throws(CourierError) -> String {
        try await call(Broker1.dump, [.vardict([String: DBusValue](CourierKey.json(json)))]).first?.stringValue ?? ""
    }

    /// Sets (or, with `bundleID` nil, forgets) the user's default for a scheme or type (`SetDefault`).
    public func setDefault(_ bundleID: String?, for key: String, isType: Bool) async throws(CourierError) -> DefaultChangeReply {
        try DefaultChangeReply(await call(Broker1.setDefault, [.string(key), .string(bundleID ?? ""), .vardict([String: DBusValue](CourierKey.forType(isType)))]))
    }

    /// Has the broker re-read the user's defaults from `defaults.json` (`ReloadDefaults`); returns
    /// the apps whose routing changed.
    public func reloadDefaults() async throws(CourierError) -> [String] {
        try await call(Broker1.reloadDefaults).first?.stringArrayValue ?? []
    }

    /// The broker's last registry changes, each with who made it (`GetStatus` `registry-changes`).
    public func recentChanges() async throws(CourierError) -> [String] {
        try await status()[CourierKey.registryChanges] ?? []
    }

    /// " — squatted by pid N (EXE)…" when an impostor holds the app's bus name (a `ListApplications` row).
    public static func squat(_ app: [String: DBusValue]) -> String {
        guard app[CourierKey.squatted] == true else { return "" }
        let pid = app[CourierKey.squatterPID].map { "pid \($0)" } ?? "an unidentified process"
        let executable = app[CourierKey.squatterExecutable].map { " (\($0))" } ?? ""
        return " — squatted by \(pid)\(executable): its bus name is taken, nothing is delivered to it"
    }
}
