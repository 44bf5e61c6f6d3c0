public import CourierManifest

/// Who may change the registry, and what no change may do silently. Pure: the registries before
/// and after, the apps running and who asks are all it looks at (docs/security.md).
///
/// - A Courier app — or a process it spawned — may register and unregister only itself: apps stay
///   in their lane, as with the `LSApplicationQueriesSchemes` limit. A process that is no app (the
///   user's shell, `courier register`) may register or unregister any app: on a session bus it
///   cannot be told from any other process of the user, and it could write the manifests folder
///   anyway.
/// - No registration takes a running app's bundle id (another executable) or a scheme it is the
///   chosen handler of (`RegistryTakeover`) unless the caller confirms with `replace`
///   (`courier register --replace`); a manifest file in a watched folder that would is held back
///   (`heldReloads`). What is changed is logged with who changed it and announced.
public struct RegistryAuthority: Sendable {
    /// The apps that are running or launching.
    public var running: Set<String>
    /// The Courier app the caller is, or one of whose processes it is; nil for any other process.
    public var callerApp: String?
    /// The caller confirmed that its registration may take over a running app.
    public var replace: Bool

    public init(running: Set<String>, callerApp: String? = nil, replace: Bool = false) {
        self.running = running
        self.callerApp = callerApp
        self.replace = replace
    }

    /// Why the registration that turns `current` into `proposed` may not be made (nil: it may), and
    /// the takeovers it makes (confirmed by `replace`, or none).
    public func review(registering current: Registry, as proposed: Registry) -> (refusal: String?, takeovers: [RegistryTakeover]) {
        if let callerApp {
            let changed = proposed.sortedApplications.map(\.bundleIdentifier.rawValue).filter {
                current.application(bundleIdentifier: $0) != proposed.application(bundleIdentifier: $0)
            }
            if let other = changed.first(where: { $0 != callerApp }) {
                return ("\(callerApp) (or a process it spawned) may register only its own manifest, not \(other); the user registers other apps with `courier register`", [])
            }
        }
        let takeovers = RegistryTakeover.find(current: current, proposed: proposed, running: running)
        guard takeovers.isEmpty || replace else {
            let apps = Set(takeovers.map(\.bundleID)).sorted().joined(separator: ", ")
            return ("\(takeovers.map(\.description).joined(separator: "; ")). Nothing was changed: a registration does not take over a running app silently — quit \(apps) first (courier quit), or confirm with `courier register --replace MANIFEST` (RegisterManifestWithOptions, replace=true); a re-pointed app is then asked to quit", takeovers)
        }
        return (nil, takeovers)
    }

    /// Why `bundleID` may not be unregistered by this caller (nil: it may).
    public func refusal(unregistering bundleID: String) -> String? {
        guard let callerApp, callerApp != bundleID else { return nil }
        return "\(callerApp) (or a process it spawned) may unregister only itself, not \(bundleID); the user unregisters apps with `courier unregister`"
    }

    /// For a reload of the manifest folders (whose writer nobody knows): the apps whose change is
    /// held back, and why — the taker of each takeover.
    public static func heldReloads(current: Registry, proposed: Registry, running: Set<String>) -> [String: String] {
        var held: [String: String] = [:]
        for takeover in RegistryTakeover.find(current: current, proposed: proposed, running: running) {
            held[takeover.taker] = [held[takeover.taker], takeover.description].compactMap { $0 }.joined(separator: "; ")
        }
        return held
    }
}
