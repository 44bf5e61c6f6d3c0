public import CourierNames
/// Into Courier from the desktop: keeps one desktop entry per Courier app in
/// `$XDG_DATA_HOME/applications/` and makes it the default handler of exactly the schemes the app
/// owns in `$XDG_CONFIG_HOME/mimeapps.list`.
///
/// Contract:
/// - Nothing outside those two folders is written (a `mimeapps.list` that is a symbolic link has
///   its target replaced), except the desktop database (`mimeinfo.cache`) that
///   `update-desktop-database` refreshes in the same `applications/` folder when the tool is on
///   `PATH`.
/// - Only `x-scheme-handler/<scheme>` keys of schemes a registered app owns are given a Courier
///   entry; no other key of `mimeapps.list` is changed, and lines are edited in place
///   (``MimeAppsList``). Unregistering removes the entry and exactly the ids it added.
/// - Files are replaced atomically; unchanged files are not rewritten, so a hot reload that
///   changes nothing touches nothing.
/// - Entries without the `X-Courier-BundleIdentifier` marker are never replaced or removed.
///
/// Courier's own writers (threads and processes) are serialized by an advisory `flock` on the
/// `applications/` folder; another tool editing `mimeapps.list` at the same instant can still lose
/// one of the two edits, as with every tool that edits it.
public struct DesktopIntegration: Sendable {
    /// Where entries and `mimeapps.list` live (`applications`, `mimeAppsList`).
    public let layout: CourierLayout
    /// What the entries run: the courier CLI (see ``DesktopExec``).
    public let exec: DesktopExec
    /// Environment used to find `update-desktop-database` (the process's when `nil`).
    public var environment: [String: String]?
    /// Whether to run `update-desktop-database` after a change (when it is on `PATH`).
    public var refreshesDesktopDatabase: Bool

    public init(
        layout: CourierLayout = .current(),
        exec: DesktopExec,
        environment: [String: String]? = nil,
        refreshesDesktopDatabase: Bool = true
    ) {
        self.layout = layout
        self.exec = exec
        self.environment = environment
        self.refreshesDesktopDatabase = refreshesDesktopDatabase
    }

    /// What one call changed.
    public struct Report: Sendable, Equatable {
        /// Desktop entries written (new or changed), as paths.
        public var writtenEntries: [String] = []
        /// Desktop entries removed, as paths.
        public var removedEntries: [String] = []
        /// Whether `mimeapps.list` was changed.
        public var mimeAppsListChanged = false
        /// The exit status of `update-desktop-database`, when it ran.
        public var databaseRefresh: ExitStatus?

        public var changedAnything: Bool {
            !writtenEntries.isEmpty || !removedEntries.isEmpty || mimeAppsListChanged
        }
    }

    /// Writes (or updates) `app`'s entry and makes it the default for its schemes; schemes it
    /// owned before and no longer does are released. An app that owns no scheme gets no entry.
    @discardableResult
    public func register(_ app: DesktopApp) throws(DesktopIntegrationError) -> Report {
        try apply(upserts: [app], removals: [])
    }

    /// Removes `bundleIdentifier`'s entry and every default Courier set for it.
    @discardableResult
    public func unregister(bundleIdentifier: String) throws(DesktopIntegrationError) -> Report {
        guard BundleIdentifier(validating: bundleIdentifier) != nil else {
            throw .invalidBundleIdentifier(bundleIdentifier)
        }
        return try apply(upserts: [], removals: [bundleIdentifier])
    }

    /// Makes the Courier entries exactly `apps`: writes theirs, removes every other Courier entry.
    /// What the broker calls on start-up and after each registry change.
    @discardableResult
    public func synchronize(_ apps: [DesktopApp]) throws(DesktopIntegrationError) -> Report {
        let wanted = Set(apps.map(\.bundleIdentifier))
        let stale = installedBundleIdentifiers().filter { !wanted.contains($0) }
        return try apply(upserts: apps, removals: stale)
    }

    /// The bundle ids of the Courier entries present in `applications/`.
    public func installedBundleIdentifiers() -> [String] {
        Syscalls.directoryEntries(layout.applications).compactMap { name in
            guard name.hasPrefix("courier-"), name.hasSuffix(".desktop") else { return nil }
            let path = Paths.join(layout.applications, name)
            guard let bytes = try? Syscalls.readFile(path), let text = String(validating: bytes, as: UTF8.self),
                let id = DesktopEntry.courierBundleIdentifier(in: text), "courier-\(id).desktop" == name
            else { return nil }
            return id
        }
    }

    /// The path of the entry for `bundleIdentifier`.
    public func entryPath(for bundleIdentifier: String) -> String {
        Paths.join(layout.applications, "courier-\(bundleIdentifier).desktop")
    }

    /// Makes the desktop entry `desktopID` the default for each of `mimeTypes` in `mimeapps.list`,
    /// as `xdg-mime default` writes it (``MimeAppsList/setDefault(_:for:)``): what
    /// `courier default SCHEME firefox.desktop` does. Returns whether the file changed.
    @discardableResult
    public static func makeDefault(_ desktopID: String, for mimeTypes: [String], layout: CourierLayout = .current()) throws(DesktopIntegrationError) -> Bool {
        try Syscalls.withDirectoryLock(layout.applications) { () throws(DesktopIntegrationError) -> Bool in
            let listPath = layout.mimeAppsList
            let originalBytes = try Syscalls.readFile(listPath)
            guard var list = MimeAppsList(bytes: originalBytes ?? []) else { throw .notUTF8(path: listPath) }
            for mimeType in mimeTypes { list.setDefault(desktopID, for: mimeType) }
            guard list.bytes != (originalBytes ?? []) else { return false }
            try Syscalls.writeFileAtomically(listPath, list.bytes)
            return true
        }
    }

    // MARK: One batch: entries, then mimeapps.list once, then the database once.

    private func apply(upserts: [DesktopApp], removals: [String]) throws(DesktopIntegrationError) -> Report {
        try Syscalls.withDirectoryLock(layout.applications) { () throws(DesktopIntegrationError) -> Report in
            try applyLocked(upserts: upserts, removals: removals)
        }
    }

    private func applyLocked(upserts: [DesktopApp], removals: [String]) throws(DesktopIntegrationError) -> Report {
        var report = Report()
        let listPath = layout.mimeAppsList
        let originalBytes = try Syscalls.readFile(listPath)
        guard var list = MimeAppsList(bytes: originalBytes ?? []) else { throw .notUTF8(path: listPath) }

        for id in removals {
            let path = entryPath(for: id)
            try checkOwnership(path)
            if try Syscalls.removeFile(path) { report.removedEntries.append(path) }
            release("courier-\(id).desktop", keeping: [], in: &list)
        }
        for app in upserts {
            let path = entryPath(for: app.bundleIdentifier)
            try checkOwnership(path)
            if app.schemes.isEmpty {
                if try Syscalls.removeFile(path) { report.removedEntries.append(path) }
                release(app.desktopFileID, keeping: [], in: &list)
                continue
            }
            let bytes = Array(DesktopEntry(app: app, exec: exec).text.utf8)
            if try Syscalls.readFile(path) != bytes {
                try Syscalls.writeFileAtomically(path, bytes)
                report.writtenEntries.append(path)
            }
            release(app.desktopFileID, keeping: Set(app.mimeTypes), in: &list)
            for mimeType in app.mimeTypes {
                for group in MimeAppsList.Group.allCases {
                    list.prefer(app.desktopFileID, for: mimeType, in: group)
                }
            }
        }

        let newBytes = list.bytes
        if newBytes != (originalBytes ?? []) {
            if list.isEmpty {
                try Syscalls.removeFile(listPath)
            } else {
                try Syscalls.writeFileAtomically(listPath, newBytes)
            }
            report.mimeAppsListChanged = true
        }
        if report.changedAnything, refreshesDesktopDatabase,
            let tool = ExternalProgram.find("update-desktop-database", environment: environment)
        {
            report.databaseRefresh = try tool.run(
                ["-q", layout.applications], environment: environment, discardOutput: true)
        }
        return report
    }

    /// Removes `desktopID` from every key of both groups except `keeping`.
    private func release(_ desktopID: String, keeping: Set<String>, in list: inout MimeAppsList) {
        for group in MimeAppsList.Group.allCases {
            for mimeType in list.mimeTypes(listing: desktopID, in: group) where !keeping.contains(mimeType) {
                list.remove(desktopID, for: mimeType, in: group)
            }
        }
    }

    private func checkOwnership(_ path: String) throws(DesktopIntegrationError) {
        guard let bytes = try Syscalls.readFile(path) else { return }
        guard let text = String(validating: bytes, as: UTF8.self), DesktopEntry.courierBundleIdentifier(in: text) != nil
        else { throw .foreignDesktopEntry(path: path) }
    }
}
