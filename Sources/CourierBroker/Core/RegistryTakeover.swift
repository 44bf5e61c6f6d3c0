public import CourierManifest

/// What a proposed registry change would take from an app that is running: its bundle id pointed
/// at another executable, or a scheme it is the chosen handler of given to another app.
///
/// A process of the user can write a manifest into the manifests folder or call
/// `RegisterManifest`; neither may silently change who receives a running, verified app's URLs.
/// The broker refuses such a registration over D-Bus unless the caller confirms (`replace`:
/// `courier register --replace`), and holds back such a file in a watched folder (the app keeps its
/// current registration, with a diagnostic in `courier dump`) until it no longer runs. Pure: the
/// registries before and after, and the apps running, are all it looks at.
public struct RegistryTakeover: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The app's launch command would run another executable (as written in the manifests).
        case repointed(from: String, to: String)
        /// The app is the chosen handler of this scheme, and would no longer be.
        case scheme(String)
    }

    /// The running app that would lose something.
    public var bundleID: String
    /// The app whose registration takes it (the same app for `repointed`).
    public var taker: String
    public var kind: Kind

    public var description: String {
        switch kind {
        case .repointed(let from, let to):
            "\(bundleID) is running and registered to launch \(from); this manifest would point it at \(to)"
        case .scheme(let scheme):
            "\(bundleID) is running and handles \(scheme): URLs; this manifest would route them to \(taker) instead"
        }
    }

    /// The takeovers `proposed` makes compared with `current`, of the apps in `running`.
    public static func find(current: Registry, proposed: Registry, running: Set<String>) -> [RegistryTakeover] {
        guard !running.isEmpty else { return [] }
        var found: [RegistryTakeover] = []
        var schemes = Set<String>()
        for app in proposed.sortedApplications {
            let old = current.application(bundleIdentifier: app.bundleIdentifier.rawValue)
            guard old != app else { continue }
            schemes.formUnion(app.schemes)
            if let old { schemes.formUnion(old.schemes) }
            if let old, running.contains(app.bundleIdentifier.rawValue), launchTarget(old) != launchTarget(app) {
                found.append(RegistryTakeover(bundleID: app.bundleIdentifier.rawValue, taker: app.bundleIdentifier.rawValue,
                                              kind: .repointed(from: launchTarget(old), to: launchTarget(app))))
            }
        }
        for scheme in schemes.sorted() {
            guard let before = current.handlers(forScheme: scheme).chosen?.bundleIdentifier, running.contains(before),
                  proposed.application(bundleIdentifier: before) != nil,
                  let after = proposed.handlers(forScheme: scheme).chosen?.bundleIdentifier, after != before else { continue }
            found.append(RegistryTakeover(bundleID: before, taker: after, kind: .scheme(scheme)))
        }
        return found
    }

    /// What the app's registration launches, for people and for comparison.
    static func launchTarget(_ manifest: Manifest) -> String {
        if manifest.dbusActivatable { return "D-Bus activation of \(manifest.bundleIdentifier)" }
        switch manifest.launchCommand?.executable {
        case .path(let path): return path
        case .searchPath(let name): return "\(name) (on PATH)"
        case nil: return "nothing (no \(ManifestParser.launchArgumentsKey))"
        }
    }
}
