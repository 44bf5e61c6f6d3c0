#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where Courier keeps everything on disk, resolved once from an environment by one rule — the one
/// home for these paths, so that the broker, `courier`, the app library and the desktop edge can
/// never disagree about where a manifest, a default or a dropped file lives.
///
/// The rule (XDG Base Directory specification): `$XDG_DATA_HOME`, `$XDG_CONFIG_HOME` and
/// `$XDG_STATE_HOME` when set to an absolute path, else `<home>/.local/share`, `<home>/.config`
/// and `<home>/.local/state`; a relative value is ignored, as the specification requires.
/// `<home>` is `$HOME` when it is an absolute path, else the user's home in the user database,
/// else `/`. `$XDG_DATA_DIRS` is its absolute entries, or `/usr/local/share:/usr/share` when
/// unset or empty.
///
/// | what | where |
/// |---|---|
/// | user manifests (`courier register` installs here) | `$XDG_DATA_HOME/courier/manifests` |
/// | system manifests | `<each $XDG_DATA_DIRS>/courier/manifests` |
/// | manifests searched instead, when set | `$COURIER_MANIFEST_PATH` (colon-separated) |
/// | the user's defaults and first-claim order | `$XDG_CONFIG_HOME/courier` |
/// | the broker's log when `courier` starts it | `$XDG_STATE_HOME/courier` |
/// | what each launched app prints (`courier log`) | `$XDG_STATE_HOME/courier/logs/<bundle-id>.log` |
/// | app containers | `$XDG_DATA_HOME/courier/containers/<bundle-id>/Documents/Inbox` |
/// | desktop entries, `mimeapps.list` | `$XDG_DATA_HOME/applications`, `$XDG_CONFIG_HOME` |
///
/// Foundation-free (plain strings, byte-exact paths), so every layer links it.
public struct CourierLayout: Sendable, Hashable {
    /// The home folder the XDG defaults are made from.
    public var home: String
    /// `$XDG_DATA_HOME`.
    public var dataHome: String
    /// `$XDG_CONFIG_HOME`.
    public var configHome: String
    /// `$XDG_STATE_HOME`.
    public var stateHome: String
    /// `$XDG_DATA_DIRS`, in precedence order.
    public var dataDirectories: [String]
    /// `$COURIER_MANIFEST_PATH` as absolute folders; nil when unset or empty.
    public var manifestPath: [String]?
    /// `$COURIER_CONTAINER` when absolute: the container the broker gave the app it launched.
    public var givenContainer: String?

    /// Resolves the layout from `environment` by the rule above.
    public init(environment: [String: String]) {
        func absolute(_ name: String) -> String? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return value
        }
        let home = absolute("HOME") ?? Self.userDatabaseHome() ?? "/"
        self.home = home
        self.dataHome = absolute("XDG_DATA_HOME") ?? Paths.join(home, ".local/share")
        self.configHome = absolute("XDG_CONFIG_HOME") ?? Paths.join(home, ".config")
        self.stateHome = absolute("XDG_STATE_HOME") ?? Paths.join(home, ".local/state")
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        self.dataDirectories = dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if let path = environment["COURIER_MANIFEST_PATH"], !path.isEmpty {
            self.manifestPath = path.split(separator: ":").map { Paths.absolute(String($0)) }
        } else {
            self.manifestPath = nil
        }
        self.givenContainer = absolute("COURIER_CONTAINER")
    }

    /// The environment variables the layout is made from.
    public static let environmentNames = ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_DIRS", "COURIER_MANIFEST_PATH", "COURIER_CONTAINER"]

    /// The layout of this process's environment.
    public static func current() -> CourierLayout { CourierLayout(environment: currentEnvironment()) }

    /// The variables of this process's environment the layout reads (`environmentNames`), one by
    /// one: an app's start-up does not copy its whole environment.
    public static func currentEnvironment() -> [String: String] { processEnvironment(environmentNames) }

    // MARK: Manifests

    /// `$XDG_DATA_HOME/courier/manifests`.
    public var userManifests: String { Paths.join(dataHome, "courier/manifests") }

    /// `<dir>/courier/manifests` for each `$XDG_DATA_DIRS` entry.
    public var systemManifests: [String] { dataDirectories.map { Paths.join($0, "courier/manifests") } }

    /// The folders to load, in precedence order, and whether they were named explicitly (then a
    /// missing one is reported): the `--manifests` folders when any are given; else
    /// `$COURIER_MANIFEST_PATH`; else the user folder followed by the system folders.
    public func manifestFolders(explicit: [String] = []) -> (folders: [String], explicit: Bool) {
        if !explicit.isEmpty { return (explicit.map(Paths.absolute), true) }
        if let manifestPath { return (manifestPath, true) }
        return ([userManifests] + systemManifests, false)
    }

    /// Where `courier register` installs a manifest so that the broker of this environment loads
    /// it again after a restart: the first folder it searches (`$COURIER_MANIFEST_PATH`'s first
    /// entry when set, else the user folder).
    public var registrationFolder: String { manifestPath?.first ?? userManifests }

    // MARK: Configuration and state

    /// `$XDG_CONFIG_HOME/courier`: `defaults.json` and `claims.json`.
    public var configFolder: String { Paths.join(configHome, "courier") }

    /// `$XDG_STATE_HOME/courier`: `courierd.log` when `courier` starts the broker.
    public var stateFolder: String { Paths.join(stateHome, "courier") }

    /// `$XDG_STATE_HOME/courier/logs`: the launched apps' logs.
    public var logsFolder: String { Paths.join(stateFolder, "logs") }

    /// `<logsFolder>/<bundle-id>.log`: the standard output and error of the app the broker
    /// launched, one header line per launch (what `courier log BUNDLE_ID` shows).
    public func log(for app: BundleIdentifier) -> String { Paths.join(logsFolder, app.rawValue + ".log") }

    /// The log before the last rotation: `<bundle-id>.log.1`.
    public func previousLog(for app: BundleIdentifier) -> String { log(for: app) + ".1" }

    /// A log is rotated (to `.log.1`) when a launch finds it larger than this.
    public static let logRotationSize = 1 << 20

    // MARK: Containers

    /// `$XDG_DATA_HOME/courier/containers`.
    public var containersRoot: String { Paths.join(dataHome, "courier/containers") }

    /// `<containersRoot>/<bundle-id>`: the app's container (its `HOME`-like folder).
    public func container(for app: BundleIdentifier) -> String { Paths.join(containersRoot, app.rawValue) }

    /// The container of the app this process is: the one the broker gave it (`$COURIER_CONTAINER`)
    /// when it launched it, else ``container(for:)`` — where the broker creates it and drops files.
    public func appContainer(for app: BundleIdentifier) -> String { givenContainer ?? container(for: app) }

    /// The folder of an app's container where it keeps its files (`Documents`), the Inbox inside it.
    public static let documentsInContainer = "Documents"

    /// The folders from a container to its Inbox: `Documents`, `Inbox`.
    public static let inboxInContainer = [documentsInContainer, "Inbox"]

    /// The folders below the containers root, in order: `<bundle-id>`, `Documents`, `Inbox`.
    public static func inboxComponents(for app: BundleIdentifier) -> [String] { [app.rawValue] + inboxInContainer }

    /// `<container>/Documents/Inbox`, where the broker drops files.
    public func inbox(for app: BundleIdentifier) -> String { ([container(for: app)] + Self.inboxInContainer).joined(separator: "/") }

    // MARK: The desktop

    /// `$XDG_DATA_HOME/applications`, where per-user desktop entries live.
    public var applications: String { Paths.join(dataHome, "applications") }

    /// `$XDG_CONFIG_HOME/mimeapps.list`, the user's default applications.
    public var mimeAppsList: String { Paths.join(configHome, "mimeapps.list") }

    /// `$XDG_DATA_HOME/mime` and each `<$XDG_DATA_DIRS>/mime`: shared-mime-info databases, the
    /// user's first.
    public var mimeFolders: [String] { ([dataHome] + dataDirectories).map { Paths.join($0, "mime") } }

    // MARK: The process

    /// The variables of the process environment among `names` that are set (`getenv`, no Foundation).
    public static func processEnvironment(_ names: [String]) -> [String: String] {
        var result = [String: String](minimumCapacity: names.count)
        for name in names {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    /// The process environment, read from `environ` (no Foundation).
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                let key = String(pair[..<equals])
                if result[key] == nil { result[key] = String(pair[pair.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// The home folder of the user running this process, from the user database.
    private static func userDatabaseHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
