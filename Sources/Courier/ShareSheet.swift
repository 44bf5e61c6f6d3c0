import FoundationEssentials
import DBus
import CourierNames
import CourierProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The share sheet of Courier (docs/share.md), the `UIActivityViewController` of an app or the
/// shell: the broker lists the activities that fit every item (`Broker1.ShareActivities`, from its
/// one registry), a `ShareChooser` asks the person, and the sheet performs the choice with the
/// ordinary calls — `DropFiles` / `OpenURL` to an app (with `share-activity` for the app's own
/// activity), the clipboard tool, files written into a folder, `courier nearby send` — so each
/// keeps its own checks. `courierd` never touches the network: a nearby send runs here.
public struct ShareSheet: Sendable {
    public let items: [ShareItem]
    /// Activity kinds (`ShareActivity.kinds`) or ids not to offer.
    public var excluded: [String]
    public let broker: BrokerClient
    /// The session's clipboard program ("Copy" is offered only with one).
    var clipboard: ClipboardTool?
    /// The `courier` command that runs `courier nearby send` (nearby is offered only with one).
    var courier: String?

    public init(items: [ShareItem], excluding excluded: [String] = [], broker: BrokerClient) {
        self.items = items
        self.excluded = excluded
        self.broker = broker
        self.clipboard = ClipboardTool.detect()
        self.courier = Self.findCourier()
    }

    /// `courier` beside this executable, else on `PATH`.
    static func findCourier() -> String? {
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let beside = Paths.join(Paths.directory(of: own), "courier")
            if Paths.isExecutableFile(beside) { return beside }
        }
        return SearchPath.find("courier", in: getenv("PATH").map { String(cString: $0) })
    }

    // MARK: Listing

    /// The activities that fit every item, from the broker; `NoActivity` when none does.
    public func activities() async throws(CourierError) -> [ShareActivity] {
        guard !items.isEmpty else { throw CourierError(.invalidArguments, "nothing to share: give at least one file, URL or text") }
        var rows: [DBusValue] = []
        var files: [UnixFD] = []
        defer { files.forEach { $0.close() } }
        for item in items {
            switch item.listed {
            case .file(let path):
                files.append(try Self.openFile(path))
                rows.append(.structure([.string(ShareItemKind.file.rawValue), .string(Paths.lastComponent(of: path)), .string("")]))
            case .url(let url): rows.append(.structure([.string(ShareItemKind.url.rawValue), .string(url), .string("")]))
            case .text: rows.append(.structure([.string(ShareItemKind.text.rawValue), .string(""), .string("")]))
            case .data(_, let type, let name): rows.append(.structure([.string(ShareItemKind.data.rawValue), .string(name), .string(type)]))
            case .source: throw CourierError(.invalidArguments, "a share item source's placeholder is itself a source; give a file, URL, text or data placeholder")
            }
        }
        var options = [String: DBusValue](CourierKey.clipboard(clipboard != nil), CourierKey.nearby(courier != nil))
        if !excluded.isEmpty { options[CourierKey.exclude] = excluded }
        let values: [DBusValue]
        do {
            values = try await Broker1.call(Broker1.shareActivities, on: broker.connection, [.array(.structure([.string, .string, .string]), rows), .fds(files), .vardict(options)])
        } catch {
            throw CourierError(wrapping: error)
        }
        let activities: [ShareActivity] = (values.first?.arrayValue ?? []).compactMap { row in
            guard case .structure(let fields) = row, fields.count == 3, let id = fields[0].stringValue, let title = fields[1].stringValue else { return nil }
            let details = fields[2].vardictValue ?? [:]
            return ShareActivity(id: id, title: title, kind: details[CourierKey.kind] ?? "",
                                 bundleID: details[CourierKey.bundleID], activityName: details[CourierKey.activity])
        }
        guard !activities.isEmpty else {
            let what = items.map(\.label).joined(separator: ", ")
            throw CourierError(.noActivity, "no activity accepts every item (\(CleanText.escaped(what.prefix(300))))\(excluded.isEmpty ? "" : " once \(excluded.joined(separator: ", ")) are excluded"); share the items separately, or register an app that declares their types")
        }
        return activities
    }

    // MARK: Choosing

    /// Lists, asks `chooser`, performs the choice.
    public func run(chooser: any ShareChooser) async throws(CourierError) -> ShareOutcome {
        let offered = try await activities()
        let choice = try await chooser.choose(from: offered, items: items.map(\.label))
        return try await perform(choice)
    }

    /// Performs the activity named `id` (`courier share --activity ID`), if it fits these items.
    public func perform(activityID id: String, folder: String? = nil, device: String? = nil) async throws(CourierError) -> ShareOutcome {
        try await run(chooser: NamedShareChooser(id: id, folder: folder, device: device))
    }

    // MARK: Performing

    /// Performs `choice`: the lazy items give their data first; a file removed since the listing
    /// is refused (`InvalidFile`) before anything is delivered. "Save to…" chosen without a folder
    /// asks the desktop portal's folder dialog for one, where a portal runs (`PortalFolderChooser`).
    public func perform(_ choice: ShareChoice) async throws(CourierError) -> ShareOutcome {
        let activity = choice.activity
        var resolved: [ShareItem] = []
        for (index, item) in items.enumerated() {
            guard case .source(let source) = item else { resolved.append(item); continue }
            let real: ShareItem
            do {
                real = try await source.item(for: activity)
            } catch {
                throw CourierError(.failed, "item \(index + 1) (\(CleanText.escaped(item.label))) could not give its data for “\(activity.title)”: \(error); nothing was shared")
            }
            if case .source = real {
                throw CourierError(.invalidArguments, "item \(index + 1) (\(CleanText.escaped(item.label))) gave another source for “\(activity.title)”, not its data; nothing was shared")
            }
            resolved.append(real)
        }
        for case .file(let path) in resolved where access(path, F_OK) != 0 {
            throw CourierError(.invalidFile, "\(CleanText.escaped(path)) was removed before the choice was made; nothing was shared")
        }
        switch ShareActivityKind(rawValue: activity.kind) {
        case .openIn?, .app?:
            guard let bundleID = activity.bundleID else { throw CourierError(.invalidArguments, "the activity \(activity.id) names no app") }
            return try await deliver(resolved, to: bundleID, activity: activity)
        case .copy?:
            return try await copy(resolved, activity: activity)
        case .saveTo?:
            var folder = choice.folder
            if folder?.isEmpty ?? true, let folders = await PortalFolderChooser.onDesktop(broker.connection) {
                folder = try await folders.chooseFolder(for: items.map(\.label))
            }
            guard let folder, !folder.isEmpty else {
                throw CourierError(.invalidArguments, "“Save to…” needs a folder (courier share --activity save-to --folder DIR), and no desktop portal runs to ask for one")
            }
            return try save(resolved, to: folder, activity: activity)
        case .nearby?:
            return try await sendNearby(resolved, device: choice.device, activity: activity)
        case .link?:
            return try await shareViaLink(resolved, activity: activity)
        case nil:
            throw CourierError(.invalidArguments, "the activity kind '\(CleanText.escaped(activity.kind))' is not one this library performs; update Courier")
        }
    }

    /// Files, text and data as one drop into the app's Inbox, then the URLs as opens.
    private func deliver(_ items: [ShareItem], to bundleID: String, activity: ShareActivity) async throws(CourierError) -> ShareOutcome {
        var options: [String: DBusValue] = [:]
        if let name = activity.activityName { options[CourierKey.shareActivity] = name }
        var delivered: [String] = []
        var files: [UnixFD] = []
        var names: [String] = []
        var staging: String?
        defer {
            files.forEach { $0.close() }
            if let staging { try? FileManager.default.removeItem(atPath: staging) }
        }
        for item in items {
            let bytes: [UInt8]
            let name: String
            switch item {
            case .file(let path):
                files.append(try Self.openFile(path))
                names.append(Paths.lastComponent(of: path))
                continue
            case .text(let text): (bytes, name) = (Array(text.utf8), Self.textFileName)
            case .data(let data, _, let suggested): (bytes, name) = (Array(data), suggested)
            case .url, .source: continue
            }
            if staging == nil { staging = try Self.temporaryFolder() }
            let path = try Self.writeNew(bytes, named: name, in: staging!)
            files.append(try Self.openFile(path))
            names.append(name)
        }
        if !files.isEmpty {
            do {
                let values = try await Broker1.call(Broker1.dropFiles, on: broker.connection, [.string(bundleID), .fds(files), .strings(names), .vardict(options)], timeout: .seconds(3600))
                delivered += values.first?.stringArrayValue ?? []
            } catch {
                throw CourierError(wrapping: error)
            }
        }
        for case .url(let url) in items {
            var urlOptions = options
            urlOptions[CourierKey.bundleID] = bundleID
            let result: [DBusValue]
            do {
                result = try await Broker1.call(Broker1.openURL, on: broker.connection, [.string(url), .vardict(urlOptions)], timeout: .seconds(40))
            } catch {
                throw CourierError(wrapping: error)
            }
            guard result.first?.boolValue == true else {
                throw CourierError(.declined, "\(bundleID) declined \(CleanText.escaped(url))\(delivered.isEmpty ? "" : " (the files before it were delivered: \(delivered.joined(separator: ", ")))")")
            }
            delivered.append(url)
        }
        return ShareOutcome(activity: activity, delivered: delivered, handled: true)
    }

    /// Text and URLs, one per line, to the clipboard tool.
    private func copy(_ items: [ShareItem], activity: ShareActivity) async throws(CourierError) -> ShareOutcome {
        guard let clipboard else {
            throw CourierError(.failed, "no clipboard tool in this session (wl-copy with WAYLAND_DISPLAY, xclip with DISPLAY); nothing was copied")
        }
        var lines: [String] = []
        for item in items {
            switch item {
            case .text(let text): lines.append(text)
            case .url(let url): lines.append(url)
            default: throw CourierError(.invalidArguments, "“Copy” takes text and URLs, not \(CleanText.escaped(item.label)); nothing was copied")
            }
        }
        let status = try await ShareProcess.run(clipboard.argv, input: Array(lines.joined(separator: "\n").utf8))
        guard status == 0 else { throw CourierError(.failed, "\(clipboard.argv[0]) exited with status \(status); nothing was copied") }
        return ShareOutcome(activity: activity, delivered: [Paths.lastComponent(of: clipboard.argv[0])], handled: true)
    }

    /// Each item as a new file in `folder`; a name already there gets " 2", " 3", … (nothing is
    /// overwritten, nothing followed through a symbolic link).
    private func save(_ items: [ShareItem], to folder: String, activity: ShareActivity) throws(CourierError) -> ShareOutcome {
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CourierError(.invalidArguments, "\(CleanText.escaped(folder)) is not a folder; nothing was saved. Give an existing folder")
        }
        var saved: [String] = []
        for item in items {
            let name: String
            let bytes: [UInt8]
            switch item {
            case .file(let path):
                name = Paths.lastComponent(of: path)
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CourierError(.invalidFile, "cannot read \(CleanText.escaped(path)); saved so far: \(saved.isEmpty ? "nothing" : saved.joined(separator: ", "))")
                }
                bytes = Array(data)
            case .text(let text): (name, bytes) = (Self.textFileName, Array(text.utf8))
            case .data(let data, _, let suggested): (name, bytes) = (suggested, Array(data))
            case .url, .source:
                throw CourierError(.invalidArguments, "“Save to…” takes files, text and data, not \(CleanText.escaped(item.label))")
            }
            saved.append(try Self.writeNew(bytes, named: name, in: folder))
        }
        return ShareOutcome(activity: activity, delivered: saved, handled: true)
    }

    /// `courier nearby send FILE… [--to-device DEVICE]`. One text or URL item is a LocalSend text
    /// message (`--text -`, the text on standard input rather than in an argument other users
    /// could read).
    private func sendNearby(_ items: [ShareItem], device: String?, activity: ShareActivity) async throws(CourierError) -> ShareOutcome {
        let extra = device.flatMap { $0.isEmpty ? nil : ["--to-device", $0] } ?? []
        if items.count == 1, let text = items[0].messageText {
            guard let courier else { throw CourierError(.failed, "courier is neither beside this program nor on PATH, so nothing can be sent to a nearby device") }
            let status = try await ShareProcess.run([courier, "nearby", "send", "--text", "-"] + extra, input: Array(text.utf8))
            guard status == 0 else {
                throw CourierError(.declined, "the nearby device declined the message or could not be reached (courier nearby send exited with status \(status); its message is above)")
            }
            return ShareOutcome(activity: activity, delivered: [device ?? "nearby"], handled: true)
        }
        let status = try await runNearby("send", items, extra: extra, what: "a nearby send")
        guard status == 0 else {
            throw CourierError(.declined, "the nearby device refused the files or could not be reached (courier nearby send exited with status \(status); its message is above)")
        }
        return ShareOutcome(activity: activity, delivered: [device ?? "nearby"], handled: true)
    }

    /// `courier nearby serve FILE…`: the address and the PIN on standard error, served until its
    /// time limit, Ctrl-C or the end of this process (docs/share.md).
    private func shareViaLink(_ items: [ShareItem], activity: ShareActivity) async throws(CourierError) -> ShareOutcome {
        let status = try await runNearby("serve", items, extra: ["--from-share-sheet"], what: "a share via link")
        guard status == 0 else {
            throw CourierError(.failed, "the share via link could not run (courier nearby serve exited with status \(status); its message is above)")
        }
        return ShareOutcome(activity: activity, delivered: ["link"], handled: true)
    }

    /// `courier nearby SUBCOMMAND FILE… EXTRA…`, its exit status; data and text items go through
    /// a private temporary folder, removed when it has ended.
    private func runNearby(_ subcommand: String, _ items: [ShareItem], extra: [String], what: String) async throws(CourierError) -> Int32 {
        guard let courier else { throw CourierError(.failed, "courier is neither beside this program nor on PATH, so \(what) cannot run") }
        let temporary = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var paths: [String] = []
        for item in items {
            switch item {
            case .file(let path): paths.append(path)
            case .data(let data, _, let name): paths.append(try Self.writeNew(Array(data), named: name, in: temporary))
            case .text(let text): paths.append(try Self.writeNew(Array(text.utf8), named: Self.textFileName, in: temporary))
            case .url, .source: throw CourierError(.invalidArguments, "\(what) takes files, not \(CleanText.escaped(item.label))")
            }
        }
        return try await ShareProcess.run([courier, "nearby", subcommand] + paths + extra)
    }

    // MARK: Files

    /// The name a text item has as a file.
    static let textFileName = "Text.txt"

    static func openFile(_ path: String) throws(CourierError) -> UnixFD {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw CourierError(.invalidFile, "cannot open \(CleanText.escaped(path)): \(String(cString: strerror(errno))); nothing was shared. Check the path and that you may read it")
        }
        return UnixFD(taking: fd)
    }

    /// A private temporary folder (mode 0700) for text and data items that travel as files: the
    /// Inbox takes only files that still have a name, so they live there until the call returns.
    static func temporaryFolder() throws(CourierError) -> String {
        var template = Array(Paths.join(getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp", "courier-share-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CourierError(.failed, "cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        return String(cString: made)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
    }

    /// Writes `bytes` as a new file in `folder` named `name` (its last component, or "Shared"),
    /// or "name 2.ext", … when taken. Returns the path.
    static func writeNew(_ bytes: [UInt8], named name: String, in folder: String) throws(CourierError) -> String {
        var base = Paths.lastComponent(of: name)
        if base.isEmpty || base == "." || base == ".." || !CleanText.isClean(base) { base = "Shared" }
        let dot = base.lastIndex(of: ".").flatMap { $0 == base.startIndex ? nil : $0 }
        let stem = dot.map { String(base[..<$0]) } ?? base
        let ext = dot.map { String(base[$0...]) } ?? ""
        for attempt in 1...1000 {
            let candidate = Paths.join(folder, attempt == 1 ? base : "\(stem) \(attempt)\(ext)")
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw CourierError(.failed, "cannot create \(CleanText.escaped(candidate)): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            guard writeAll(fd, bytes) else {
                let reason = String(cString: strerror(errno))
                unlink(candidate)
                throw CourierError(.failed, "cannot write \(CleanText.escaped(candidate)): \(reason); it was removed")
            }
            return candidate
        }
        throw CourierError(.failed, "\(CleanText.escaped(folder)) already has a thousand files named like \(CleanText.escaped(base)); nothing more was saved")
    }
}
