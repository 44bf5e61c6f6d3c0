public import CourierManifest

extension DesktopApp {
    /// The desktop's view of a registry: one app per registered manifest, with the schemes it
    /// *owns* — those for which the registry chooses it (user default, rank, first claim). A scheme
    /// an app claims but loses to another app, or that is reserved for the system (`https`,
    /// `mailto`, …) and was refused, is not given to the desktop, so Courier never becomes the
    /// handler of a scheme it would not route to that app.
    ///
    /// Apps whose bundle identifier cannot name a desktop file are left out (the manifest loader
    /// already reported them).
    public static func owners(in registry: Registry) -> [DesktopApp] {
        registry.sortedApplications.compactMap { manifest in
            let owned = manifest.schemes.filter {
                registry.handlers(forScheme: $0).chosen?.bundleIdentifier == manifest.bundleIdentifier
            }
            return try? DesktopApp(bundleIdentifier: manifest.bundleIdentifier, name: manifest.name, schemes: owned)
        }
    }
}
