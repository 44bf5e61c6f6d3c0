import CourierTypes
import CourierNames

/// What `courier register` decides about a manifest file before it installs anything: whether the
/// app would be usable, what to tell the user, and how its launch command must be recorded so the
/// broker runs what the registering user meant.
///
/// Why at registration: `register` copies the manifest into the manifests folder, and the broker
/// that launches the app later may have another `PATH` (a bus-activated broker has the session
/// bus's, usually without `~/.local/bin`). So a bare `argv[0]` is looked up on the registering
/// user's `PATH` now, and a relative one against the folder of the user's file (not the copy's);
/// the copy records the absolute path. Pure apart from the executable checks on `PATH`.
public struct RegistrationReview: Sendable {
    /// The manifest; nil when the file was refused.
    public var manifest: Manifest?
    /// The loader's diagnostics, naming the user's file, plus the review's own warnings.
    public var diagnostics: [ManifestDiagnostic]
    /// Why the app would be unusable (nothing routes to it, or its launch command is broken).
    /// Empty when it may be registered.
    public var problems: [String]
    /// The absolute `argv[0]` the installed copy must record; nil when the manifest's own is kept.
    public var recordedExecutable: String?

    /// - Parameters:
    ///   - loaded: the user's file as `ManifestLoader.load(file:)` read it.
    ///   - searchPath: the registering user's `PATH`.
    public init(_ loaded: ManifestLoader.FileResult, searchPath: String?) {
        manifest = loaded.manifest
        diagnostics = loaded.diagnostics
        problems = []
        guard let manifest = loaded.manifest else {
            problems = loaded.diagnostics.filter { $0.severity == .error }.map(\.message)
            return
        }
        if manifest.schemes.isEmpty && manifest.documentTypes.isEmpty {
            problems.append("nothing would reach it: it declares no valid URL scheme (CFBundleURLTypes) and no document type (CFBundleDocumentTypes)")
        }
        let launchKey = ManifestParser.launchArgumentsKey
        let launchDiagnostics = loaded.diagnostics.filter { $0.keyPath == launchKey || $0.keyPath.hasPrefix(launchKey + "[") }
        // Without a launch command the broker can neither start the app nor verify a process that
        // checks in as it (docs/security.md: only the launched pid or the manifest's executable is
        // the app), so nothing would ever reach it.
        if manifest.launchCommand == nil, !manifest.dbusActivatable {
            if launchDiagnostics.isEmpty {
                problems.append("there is no \(launchKey), so Courier can neither launch the app nor verify a process that checks in as it; add the argv, e.g. <array><string>/usr/bin/myapp</string></array>")
            } else {
                problems.append("Courier could not launch it: \(launchKey) is unusable (see above)")
            }
        }
        guard let command = manifest.launchCommand, !manifest.dbusActivatable else { return }
        switch command.executable {
        case .searchPath(let name):
            if let found = command.resolvedExecutable(searchPath: searchPath) {
                recordedExecutable = found
            } else {
                warn(launchKey + "[0]", "'\(name)' is not on your PATH (\(searchPath ?? "unset")); the broker will look for it on its own PATH when it launches the app, which may differ — install it, or write its absolute path")
            }
        case .path(let path):
            if command.arguments[0] != path { recordedExecutable = path }
            if !Paths.isExecutableFile(path) {
                let written = command.arguments[0] != path ? " ('\(command.arguments[0])' relative to the folder of this file)" : ""
                warn(launchKey + "[0]", "\(path)\(written) is not an executable file; build or install it before opening URLs, or fix the path")
            }
        }
    }

    /// Whether the app may be registered (with `strict`, warnings refuse it too).
    public func mayRegister(strict: Bool) -> Bool {
        manifest != nil && problems.isEmpty && (!strict || warnings.isEmpty)
    }

    /// The warnings to print at registration.
    public var warnings: [ManifestDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    private mutating func warn(_ keyPath: String, _ message: String) {
        diagnostics.append(ManifestDiagnostic(file: manifest?.path ?? "", keyPath: keyPath, message: message, severity: .warning, code: .invalidValue))
    }
}
