public import DBus
public import CourierNames

/// `org.courier.Broker1`, served by the broker (`courierd`) at `/org/courier/Broker` as
/// `org.courier.Broker` on the session bus (docs/dbus-api.md). The request and reply shapes are
/// beside it (`OpenURLReply`, `ApplicationEntry`, `BrokerStatus`, …), the option keys in `OptionKey`.
public enum Broker1 {
    public static let busName = try! BusName(CourierBusNames.broker)
    public static let objectPath = try! ObjectPath(CourierBusNames.brokerPath)
    public static let name = try! InterfaceName(CourierBusNames.brokerInterface)

    /// `(s url, a{sv} options) → (b handled, s bundle_id, a{sv} reply)` (`OpenURLReply`): routes
    /// the URL to its owner (or the `bundle-id` option's app), launching it if needed.
    public static let openURL = ProtocolMethod(
        name, try! MemberName(CourierBusNames.openURL), arguments: Signature(stringLiteral: CourierBusNames.openURLArguments),
        results: Signature(stringLiteral: CourierBusNames.openURLResults),
        argumentNames: ["url", "options"], resultNames: ["handled", "bundle_id", "reply"])
    /// `(s url) → (b can_open)`.
    public static let canOpenURL = ProtocolMethod(name, "CanOpenURL", arguments: "s", results: "b", argumentNames: ["url"], resultNames: ["can_open"])
    /// `(s url) → (as bundle_ids)`, the chosen one first.
    public static let handlersForURL = ProtocolMethod(name, "HandlersForURL", arguments: "s", results: "as", argumentNames: ["url"], resultNames: ["bundle_ids"])
    /// `(s url) → (as bundle_ids, a{sv} details)`: `HandlersForURL` with why each candidate won or
    /// lost (`CourierKey.explanation`) and, when none handles it, what to try (`CourierKey.advice`).
    public static let explainHandlersForURL = ProtocolMethod(
        name, "ExplainHandlersForURL", arguments: "s", results: "asa{sv}", argumentNames: ["url"], resultNames: ["bundle_ids", "details"])
    /// `(s name, ah file, a{sv} options) → (s type, as bundle_ids, a{sv} details)`: the type of a
    /// file named `name` (by its content too when `file` holds its descriptor; at most one) and the
    /// apps that take it, the chosen one first, as a drop of it would be routed. Options:
    /// `CourierKey.type` asks about that type instead of a name; `CourierKey.mimeType` is the type a
    /// sender announced, used when the name says nothing; `CourierKey.bundleID` asks whether that
    /// app takes it (`NoHandler` when it is not registered, `NotPermitted` when it declares no such
    /// document type). Details: `CourierKey.typeReason`, `CourierKey.explanation`.
    public static let handlersForFile = ProtocolMethod(
        name, "HandlersForFile", arguments: "saha{sv}", results: "sasa{sv}",
        argumentNames: ["name", "file", "options"], resultNames: ["type", "bundle_ids", "details"])
    /// `(a{sv} options) → (s dump)`: the registry as the broker routes with it, every app with its
    /// claims and every diagnostic, as text or with `CourierKey.json` as JSON (`courier dump`).
    /// Refused (`NotPermitted`) to an app: an app sees only what `ListApplications` shows it.
    public static let dump = ProtocolMethod(name, "Dump", arguments: "a{sv}", results: "s", argumentNames: ["options"], resultNames: ["dump"])
    /// `(s key, s bundle_id, a{sv} options) → (s key, s previous, s chosen)`: makes `bundle_id` the
    /// user's default for the scheme `key` (or, with `CourierKey.forType`, the type), or forgets the
    /// default when `bundle_id` is empty; saves it in the state folder and routes by it at once.
    /// Returns the key as stored, the default it replaced ("" for none) and the app chosen now.
    /// `NoHandler`: no such app; `InvalidArguments`: an invalid key or an app that is no candidate;
    /// `Failed`: the defaults could not be saved (nothing changed). Refused (`NotPermitted`) to an app.
    public static let setDefault = ProtocolMethod(
        name, "SetDefault", arguments: "ssa{sv}", results: "sss", argumentNames: ["key", "bundle_id", "options"], resultNames: ["key", "previous", "chosen"])
    /// `(s bundle_id) → (a{sv} launch_options)` (`LaunchKey`): an app is ready.
    public static let checkIn = ProtocolMethod(name, "CheckIn", arguments: "s", results: "a{sv}", argumentNames: ["bundle_id"], resultNames: ["launch_options"])
    /// `(s challenge) → ()`: the app confirms, from its bus connection, the direct link's challenge.
    public static let confirmLink = ProtocolMethod(name, "ConfirmLink", arguments: "s", argumentNames: ["challenge"])
    /// `(s path) → (s bundle_id)`.
    public static let registerManifest = ProtocolMethod(name, "RegisterManifest", arguments: "s", results: "s", argumentNames: ["path"], resultNames: ["bundle_id"])
    /// `(s path, a{sv} options) → (s bundle_id)` (`OptionKey.replace`).
    public static let registerManifestWithOptions = ProtocolMethod(
        name, "RegisterManifestWithOptions", arguments: "sa{sv}", results: "s", argumentNames: ["path", "options"], resultNames: ["bundle_id"])
    /// `(h file, a{sv} options) → (s bundle_id)`: the manifest the caller's descriptor reads
    /// (`CourierKey.path`, required: the file's absolute path; `CourierKey.replace`).
    public static let registerManifestFile = ProtocolMethod(
        name, "RegisterManifestFile", arguments: "ha{sv}", results: "s", argumentNames: ["file", "options"], resultNames: ["bundle_id"])
    /// `(a(sss) items, ah files, a{sv} options) → (a(ssa{sv}) activities)`: the share sheet's
    /// activities for the items (docs/share.md); options `CourierKey.exclude`, `.clipboard`, `.nearby`.
    public static let shareActivities = ProtocolMethod(
        name, "ShareActivities", arguments: "a(sss)aha{sv}", results: "a(ssa{sv})",
        argumentNames: ["items", "files", "options"], resultNames: ["activities"])
    /// `(ah files, as names) → (s batch)`: hands the broker files of a drop larger than the bus
    /// lets one message carry; `DropFiles`/`OpenFiles` name the batches in `CourierKey.staged`.
    public static let stageFiles = ProtocolMethod(
        name, "StageFiles", arguments: "ahas", results: "s", argumentNames: ["files", "names"], resultNames: ["batch"])
    /// `(s bundle_id) → ()`.
    public static let unregister = ProtocolMethod(name, "Unregister", arguments: "s", argumentNames: ["bundle_id"])
    /// `() → (as updated)`: re-read the user's defaults.
    public static let reloadDefaults = ProtocolMethod(name, "ReloadDefaults", results: "as", resultNames: ["updated"])
    /// `() → (aa{sv} applications)` (`ApplicationEntry`).
    public static let listApplications = ProtocolMethod(name, "ListApplications", results: "aa{sv}", resultNames: ["applications"])
    /// `() → (a{sv} status)` (`BrokerStatus`).
    public static let getStatus = ProtocolMethod(name, "GetStatus", results: "a{sv}", resultNames: ["status"])
    /// `(s bundle_id, ah files, as names, a{sv} options) → (as inbox_urls)`.
    public static let dropFiles = ProtocolMethod(
        name, "DropFiles", arguments: "sahasa{sv}", results: "as", argumentNames: ["bundle_id", "files", "names", "options"], resultNames: ["inbox_urls"])
    /// `(s bundle_id, ah files, as names, a{sv} options) → (aa{sv} files)` (`OpenedFile`).
    public static let openFiles = ProtocolMethod(
        name, "OpenFiles", arguments: "sahasa{sv}", results: "aa{sv}", argumentNames: ["bundle_id", "files", "names", "options"], resultNames: ["files"])
    /// `() → (aa{sv} processes)` (`ProcessEntry`).
    public static let listProcesses = ProtocolMethod(name, "ListProcesses", results: "aa{sv}", resultNames: ["processes"])
    /// `(s bundle_id) → ()`: terminate with notice.
    public static let terminate = ProtocolMethod(name, "Terminate", arguments: "s", argumentNames: ["bundle_id"])
    /// `(s bundle_id) → ()`: SIGKILL without notice (`courier quit --force`).
    public static let kill = ProtocolMethod(name, "Kill", arguments: "s", argumentNames: ["bundle_id"])
    /// `(s bundle_id, a{sv} options) → (a{sv} result)` (`LaunchReply`): start the app without a URL
    /// and reply once it has checked in (or at once when it runs); options `CourierKey.arguments`,
    /// `CourierKey.fresh`.
    public static let launch = ProtocolMethod(
        name, "Launch", arguments: "sa{sv}", results: "a{sv}", argumentNames: ["bundle_id", "options"], resultNames: ["result"])
    /// `(s bundle_id, a{sv} options) → (a{sv} result)` (`LaunchReply`): terminate with notice, then
    /// launch; options as `Launch`'s.
    public static let restart = ProtocolMethod(
        name, "Restart", arguments: "sa{sv}", results: "a{sv}", argumentNames: ["bundle_id", "options"], resultNames: ["result"])

    /// `(as added, as removed, as updated, a{sv} details)`.
    public static let registryChanged = ProtocolSignal(
        name, "RegistryChanged", arguments: "asasasa{sv}", argumentNames: ["added", "removed", "updated", "details"])
    /// `(s token, t copied, t total)`, for a drop with `progress-token`.
    public static let dropProgress = ProtocolSignal(name, "DropProgress", arguments: "stt", argumentNames: ["token", "copied", "total"])
    /// `(s bundle_id, s state, u pid)` (`ApplicationStateChange`).
    public static let applicationStateChanged = ProtocolSignal(
        name, "ApplicationStateChanged", arguments: "ssu", argumentNames: ["bundle_id", "state", "pid"])

    public static let interface = ProtocolInterface(
        name,
        methods: [
            openURL, canOpenURL, handlersForURL, explainHandlersForURL, handlersForFile, dump, setDefault, checkIn, confirmLink, registerManifest, registerManifestWithOptions, registerManifestFile, unregister,
            reloadDefaults, listApplications, getStatus, dropFiles, openFiles, listProcesses, terminate, kill, launch, restart,
            shareActivities, stageFiles,
        ],
        signals: [registryChanged, dropProgress, applicationStateChanged]
    )

    /// Calls `method` of the broker on `connection` (the bus, or a direct link when `onLink`).
    public static func call(
        _ method: ProtocolMethod, on connection: DBusConnection, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(CourierError) -> [DBusValue] {
        try await method.call(on: connection, busName, path: objectPath, arguments, timeout: timeout)
    }
}

/// `org.courier.BrokerLink1`, served by the broker on an app's direct link (a private
/// peer-to-peer connection, no bus) at `/org/courier/Broker`.
public enum BrokerLink1 {
    public static let name = try! InterfaceName(CourierBusNames.brokerLinkInterface)
    /// `(s bundle_id) → (s challenge)`: the app hands the challenge back with `Broker1.ConfirmLink`.
    public static let attach = ProtocolMethod(name, "Attach", arguments: "s", results: "s", argumentNames: ["bundle_id"], resultNames: ["challenge"])

    public static let interface = ProtocolInterface(name, methods: [attach])
}
