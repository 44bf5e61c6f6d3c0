public import CourierNames

/// The desktop's own applications for a MIME type, read as `gio mime` and `handlr list` read them:
/// read-only, from the same files.
///
/// - **Entries**: `*.desktop` files of `Type=Application` in `$XDG_DATA_HOME/applications`, then each
///   `$XDG_DATA_DIRS/applications`; the first file of an id wins, and a file in a subfolder
///   (`kde/okular.desktop`) has the id `kde-okular.desktop`. `Hidden=true` deletes an entry.
/// - **`mimeapps.list` files**, in the specification's order: `$XDG_CONFIG_HOME`, each
///   `$XDG_CONFIG_DIRS`, `$XDG_DATA_HOME/applications`, each `$XDG_DATA_DIRS/applications`; in each
///   folder the desktop-specific `<desktop>-mimeapps.list` (for each `$XDG_CURRENT_DESKTOP` name,
///   lowercased) comes before `mimeapps.list`.
/// - **The default** is the first id listed in `[Default Applications]` along that order whose
///   entry is installed; **the handlers** are the default, then the ids of `[Added Associations]`
///   (in order), then the entries whose `MimeType` declares the type, each once, less the ids of
///   `[Removed Associations]` (which, as in GLib, do not undo a default).
public struct DesktopApplications: Sendable {
    /// One desktop entry, as far as handling a type goes.
    public struct Entry: Sendable, Equatable {
        /// The desktop file id (`firefox.desktop`).
        public let id: String
        /// Where it was found.
        public let path: String
        /// Its `Name` (the unlocalized one); the id when it has none.
        public let name: String
        /// Its `MimeType` list.
        public let mimeTypes: [String]
        /// Its `X-Courier-BundleIdentifier`: set on the entries Courier writes for its apps.
        public let courierBundleIdentifier: String?

        /// Whether the entry says it handles `mimeType` (MIME types compare without case).
        public func declares(_ mimeType: String) -> Bool {
            mimeTypes.contains { $0.lowercased() == mimeType.lowercased() }
        }
    }

    /// One application that handles a type, and why it is listed.
    public struct Handler: Sendable, Equatable {
        public let entry: Entry
        /// The desktop's default for the type.
        public let isDefault: Bool
    }

    public let layout: CourierLayout
    /// `$XDG_CONFIG_DIRS` (absolute entries), or `/etc/xdg` when unset or empty.
    public let configDirectories: [String]
    /// `$XDG_CURRENT_DESKTOP`'s names, lowercased, in order.
    public let currentDesktops: [String]

    /// Reads the folders from `environment` (the process's when `nil`).
    public init(environment: [String: String]? = nil) {
        let environment = environment ?? CourierLayout.processEnvironment(CourierLayout.environmentNames + ["XDG_CONFIG_DIRS", "XDG_CURRENT_DESKTOP"])
        layout = CourierLayout(environment: environment)
        let dirs = (environment["XDG_CONFIG_DIRS"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        configDirectories = dirs.isEmpty ? ["/etc/xdg"] : dirs
        currentDesktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.lowercased() }
    }

    /// The folders searched for desktop entries, in precedence order.
    public var applicationFolders: [String] {
        ([layout.dataHome] + layout.dataDirectories).map { Paths.join($0, "applications") }
    }

    /// The `mimeapps.list` files, in precedence order (existing or not).
    public var mimeAppsLists: [String] {
        let folders = [layout.configHome] + configDirectories + applicationFolders
        return folders.flatMap { folder in
            currentDesktops.map { Paths.join(folder, "\($0)-mimeapps.list") } + [Paths.join(folder, "mimeapps.list")]
        }
    }

    /// The installed entry with desktop file id `id`, if any.
    public func entry(id: String) -> Entry? {
        guard Self.isValidID(id) else { return nil }
        for folder in applicationFolders {
            // `a-b-c.desktop` may be `a/b-c.desktop`, `a-b/c.desktop`, `a/b/c.desktop`, …: try each
            // split of the id at its dashes, plain file first.
            for relative in Self.relativePaths(for: id) {
                let path = Paths.join(folder, relative)
                guard let bytes = try? Syscalls.readFile(path) else { continue }
                guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
                return Self.parse(text, id: id, path: path)
            }
        }
        return nil
    }

    /// Every installed entry that declares `mimeType` in its `MimeType` key, ordered by id.
    public func entries(declaring mimeType: String) -> [Entry] {
        entries().filter { $0.declares(mimeType) }
    }

    /// The desktop's default application for `mimeType`, if one is set and installed.
    public func defaultEntry(for mimeType: String) -> Entry? {
        for path in mimeAppsLists {
            guard let list = Self.list(at: path) else { continue }
            for id in list.desktopIDs(for: mimeType, in: .defaultApplications) {
                if let entry = entry(id: id) { return entry }
            }
        }
        return nil
    }

    /// The applications that handle `mimeType`: the default first, then added associations, then
    /// the entries that declare it, less the removed associations.
    public func handlers(for mimeType: String) -> [Handler] {
        let chosen = defaultEntry(for: mimeType)
        let lists = mimeAppsLists.compactMap(Self.list(at:))
        var seen = Set(lists.flatMap { $0.removedDesktopIDs(for: mimeType) })
        if let chosen { seen.remove(chosen.id) }
        var handlers: [Handler] = []
        func add(_ entry: Entry, isDefault: Bool = false) {
            if seen.insert(entry.id).inserted { handlers.append(Handler(entry: entry, isDefault: isDefault)) }
        }
        if let chosen { add(chosen, isDefault: true) }
        for list in lists {
            for id in list.desktopIDs(for: mimeType, in: .addedAssociations) {
                if let entry = entry(id: id) { add(entry) }
            }
        }
        entries(declaring: mimeType).forEach { add($0) }
        return handlers
    }

    // MARK: Files

    /// Whether `id` can be a desktop file id: a file name ending in `.desktop`, no `/`, no NUL,
    /// not hidden.
    public static func isValidID(_ id: String) -> Bool {
        id.hasSuffix(".desktop") && id.count > ".desktop".count && !id.hasPrefix(".") && !id.contains("/") && !id.utf8.contains(0)
    }

    private static func list(at path: String) -> MimeAppsList? {
        guard let bytes = try? Syscalls.readFile(path) else { return nil }
        return MimeAppsList(bytes: bytes)
    }

    /// Every installed application entry, ordered by id.
    public func entries() -> [Entry] {
        var seen = Set<String>()
        var entries: [Entry] = []
        func walk(_ folder: String, prefix: String, depth: Int) {
            for name in Syscalls.directoryEntries(folder) where !name.hasPrefix(".") {
                let path = Paths.join(folder, name)
                if Syscalls.isDirectory(path) {
                    if depth < 8 { walk(path, prefix: prefix + name + "-", depth: depth + 1) }
                    continue
                }
                let id = prefix + name
                guard name.hasSuffix(".desktop"), seen.insert(id).inserted,
                    let bytes = try? Syscalls.readFile(path), let text = String(validating: bytes, as: UTF8.self),
                    let entry = Self.parse(text, id: id, path: path)
                else { continue }
                entries.append(entry)
            }
        }
        for folder in applicationFolders { walk(folder, prefix: "", depth: 0) }
        return entries.sorted { $0.id < $1.id }
    }

    /// The files an id may be, relative to an `applications` folder.
    static func relativePaths(for id: String) -> [String] {
        let parts = id.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1, parts.count <= 8 else { return [id] }
        var paths: [String] = []
        // Each of the 2^(n-1) ways to turn a dash into a folder separator; the plain file first.
        for mask in 0..<(1 << (parts.count - 1)) {
            var path = parts[0]
            for index in 1..<parts.count {
                path += (mask & (1 << (index - 1))) != 0 ? "/" : "-"
                path += parts[index]
            }
            paths.append(path)
        }
        return paths
    }

    /// The `[Desktop Entry]` group of `text`; nil when it is not an application or is hidden.
    static func parse(_ text: String, id: String, path: String) -> Entry? {
        var inMain = false
        var values: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[") {
                inMain = String(line).trimmingWhitespace == "[Desktop Entry]"
                continue
            }
            guard inMain, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingWhitespace
            if values[key] == nil { values[key] = String(line[line.index(after: equals)...]).trimmingWhitespace }
        }
        guard values["Type"] == "Application", values["Hidden"] != "true" else { return nil }
        let mimeTypes = (values["MimeType"] ?? "").split(separator: ";").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
        let name = values["Name"].flatMap { $0.isEmpty ? nil : $0 } ?? id
        return Entry(id: id, path: path, name: name, mimeTypes: mimeTypes, courierBundleIdentifier: values[DesktopEntry.markerKey])
    }
}
