import Foundation

/// Where Courier keeps manifests and the user's choices, from the XDG base-directory variables.
///
/// - user manifests: `$XDG_DATA_HOME/courier/manifests` (default `~/.local/share/courier/manifests`);
/// - system manifests: `<dir>/courier/manifests` for each `$XDG_DATA_DIRS` entry (default
///   `/usr/local/share:/usr/share`, so `/usr/local/share/courier/manifests` and
///   `/usr/share/courier/manifests`);
/// - user choices (defaults.json) and the first-claim order (claims.json): `$XDG_CONFIG_HOME/courier`
///   (default `~/.config/courier`).
///
/// The folders searched are, in precedence order: the `--manifests` folders when any are given;
/// else the colon-separated `COURIER_MANIFEST_PATH` when set and not empty; else the user folder
/// followed by the system folders.
public struct CourierDirectories: Sendable {
    public var environment: [String: String]

    /// `environment` defaults to the process's environment.
    public init(environment: [String: String]? = nil) {
        self.environment = environment ?? ProcessInfo.processInfo.environment
    }

    private var home: String { environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/" }

    private func absoluteVariable(_ name: String) -> String? {
        guard let v = environment[name], v.hasPrefix("/") else { return nil }
        return v
    }

    public var dataHome: String { absoluteVariable("XDG_DATA_HOME") ?? Paths.join(home, ".local/share") }
    public var configHome: String { absoluteVariable("XDG_CONFIG_HOME") ?? Paths.join(home, ".config") }

    /// `$XDG_DATA_HOME/courier/manifests`.
    public var userManifestFolder: String { Paths.join(dataHome, "courier/manifests") }

    /// `<dir>/courier/manifests` for each `$XDG_DATA_DIRS` entry.
    public var systemManifestFolders: [String] {
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        return dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }.map { Paths.join($0, "courier/manifests") }
    }

    /// `$XDG_CONFIG_HOME/courier`: defaults.json and claims.json.
    public var stateFolder: String { Paths.join(configHome, "courier") }

    /// The folders to load, in precedence order, and whether they were named explicitly (then a
    /// missing one is reported).
    public func manifestFolders(explicit: [String] = []) -> (folders: [String], explicit: Bool) {
        if !explicit.isEmpty { return (explicit.map(Paths.absolute), true) }
        if let path = environment["COURIER_MANIFEST_PATH"], !path.isEmpty {
            return (path.split(separator: ":").map { Paths.absolute(String($0)) }, true)
        }
        return ([userManifestFolder] + systemManifestFolders, false)
    }
}
