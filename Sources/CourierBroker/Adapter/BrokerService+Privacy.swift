import DBus

/// What a caller may learn about other apps: the `LSApplicationQueriesSchemes` limit, one rule for
/// every entry point that answers "who handles this?" (`CanOpenURL`, `HandlersForURL`, `OpenURL`
/// with `dry-run`, `ListApplications`).
///
/// - A caller that is an app — the app that checked in from its unique name or that Courier
///   launched with its pid, or a process one of whose ancestors is such an app (a helper it
///   spawned: `gdbus`, a shell) — learns about a scheme only if its manifest lists it. For any
///   other scheme it gets the answer the guide gives: a plain "no" (`false`, no handlers, the
///   dry run's `NoHandler`, no rows), the same as for a scheme nobody handles, never an error
///   that itself says "you may not ask".
/// - A caller that is no app (the user's shell, a desktop tool) gets full answers.
///
/// On a shared session bus this limit is not a wall: a process that is not a descendant of an
/// app, or that reads the manifest folders, learns everything (docs/security.md). It keeps apps
/// that play by the rules honest, and makes every path agree.
extension BrokerService {
    /// The app behind `sender`, for the privacy limit; nil when the caller is no app.
    func queryingApp(_ sender: String) async -> AppDescriptor? {
        guard !sender.isEmpty else { return nil }
        let pid = await callerPID(sender)
        var bundleID = dispatcher.sourceApplication(uniqueName: sender, pid: pid)
        if bundleID.isEmpty, let pid { bundleID = appOwning(process: pid) ?? "" }
        return bundleID.isEmpty ? nil : catalog.descriptor(bundleID: bundleID)
    }

    /// Whether `app` (nil: no app) may learn who handles `scheme`.
    static func may(_ app: AppDescriptor?, askAbout scheme: String) -> Bool {
        guard let app else { return true }
        return app.queriesSchemes.contains(scheme.lowercased())
    }

    /// The app one of whose processes is `pid` or an ancestor of it: launched by Courier (still
    /// launching or running) or admitted at `CheckIn`.
    private func appOwning(process pid: Int32) -> String? {
        var apps = receivers.admittedProcesses()
        for status in dispatcher.statuses() {
            if let launched = status.state.pid { apps[launched] = status.bundleID }
        }
        guard !apps.isEmpty else { return nil }
        return ProcessIdentity.lineage(of: pid).lazy.compactMap { apps[$0] }.first
    }

    /// The scheme of `url` (lowercased), for the limit; "" when it has none.
    static func scheme(of url: String) -> String {
        url.contains(":") ? url.prefix(while: { $0 != ":" }).lowercased() : ""
    }
}
