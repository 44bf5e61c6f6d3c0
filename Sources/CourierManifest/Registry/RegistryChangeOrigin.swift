/// Who made a registry change, as far as the broker can tell: a D-Bus caller's credentials (pid,
/// uid, executable, the Courier app it is), or a file written into a watched manifests folder by a
/// process nobody can name. Logged with every change, announced with `RegistryChanged`, and kept
/// for `courier dump`.
public struct RegistryChangeOrigin: Sendable, Hashable, CustomStringConvertible {
    /// How the change reached the registry: `RegisterManifest`, `Unregister`, `manifest folder`, ….
    public var via: String
    /// The caller's unique bus name, pid, uid and executable (`/proc/PID/exe`), when known.
    public var uniqueName: String?
    public var pid: Int32?
    public var uid: UInt32?
    public var executable: String?
    /// The Courier app the caller is (or a process of), when it is one.
    public var application: String?

    public init(via: String, uniqueName: String? = nil, pid: Int32? = nil, uid: UInt32? = nil, executable: String? = nil, application: String? = nil) {
        self.via = via
        self.uniqueName = uniqueName
        self.pid = pid
        self.uid = uid
        self.executable = executable
        self.application = application
    }

    /// A change read from a watched manifests folder: the writer of a file is not known (any
    /// process of the user may write there).
    public static let manifestFolder = RegistryChangeOrigin(via: "manifest folder")

    /// "RegisterManifest from pid 4242 (/usr/bin/python3.11), uid 1000, :1.42", or
    /// "manifest folder (a file changed; its writer is unknown)".
    public var description: String {
        var who: [String] = []
        if let pid { who.append("pid \(pid)" + (executable.map { " (\($0))" } ?? "")) }
        if let uid { who.append("uid \(uid)") }
        if let uniqueName { who.append(uniqueName) }
        if let application { who.append("app \(application)") }
        if who.isEmpty { return via == Self.manifestFolder.via ? "\(via) (a file changed; its writer is unknown)" : "\(via) (caller unknown)" }
        return "\(via) from \(who.joined(separator: ", "))"
    }
}
