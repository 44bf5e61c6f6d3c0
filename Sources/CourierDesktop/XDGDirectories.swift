import CourierManifest
import Foundation

/// The two XDG base directories Courier's desktop integration writes to, and nothing else.
///
/// Resolved the way the XDG Base Directory specification says: `$XDG_DATA_HOME` and
/// `$XDG_CONFIG_HOME` when set to an absolute path, otherwise `$HOME/.local/share` and
/// `$HOME/.config`. A relative value is ignored, as the specification requires.
public struct XDGDirectories: Sendable, Equatable {
    /// `$XDG_DATA_HOME`: desktop entries go to its `applications/` folder.
    public var dataHome: String
    /// `$XDG_CONFIG_HOME`: `mimeapps.list` lives here.
    public var configHome: String

    public init(dataHome: String, configHome: String) {
        self.dataHome = dataHome
        self.configHome = configHome
    }

    /// Resolves the directories from an environment (the process's when `nil`).
    public init(environment: [String: String]? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        func absolute(_ key: String) -> String? {
            guard let value = environment[key], value.hasPrefix("/") else { return nil }
            return value
        }
        self.dataHome = absolute("XDG_DATA_HOME") ?? Paths.join(home, ".local/share")
        self.configHome = absolute("XDG_CONFIG_HOME") ?? Paths.join(home, ".config")
    }

    /// `$XDG_DATA_HOME/applications`, where per-user desktop entries live.
    public var applications: String { Paths.join(dataHome, "applications") }

    /// `$XDG_CONFIG_HOME/mimeapps.list`, the user's default applications.
    public var mimeAppsList: String { Paths.join(configHome, "mimeapps.list") }
}
